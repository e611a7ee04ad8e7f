#!/usr/bin/env node
// Meltano's `executable: target-cnv`: the same launcher and bundle as `cnv target <args>`.
'use strict';

process.argv.splice(2, 0, 'target');
require('./cnv.js');
