#!/usr/bin/env node
// Meltano's `executable: tap-cnv`: the same launcher and bundle as `cnv tap <args>`.
'use strict';

process.argv.splice(2, 0, 'tap');
require('./cnv.js');
