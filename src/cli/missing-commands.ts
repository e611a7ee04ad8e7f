const CONTACTS =
  'the API lists contacts only through its export: `cnv export contacts --no-state` prints every contact, ' +
  'one JSON line each (filter with jq; `-o csv` for a sheet); `cnv contacts get --email X -q fields` reads one';
const EVENTS =
  'the API lists events only through its exports: `cnv export custom-events --since 7d --no-state` ' +
  '(and `cnv export email-events --type all --no-state`) print them, one JSON line each';

/**
 * Commands a newcomer reaches for that cnv does not have, because the API has no such endpoint,
 * by command path: where to go instead (the `hint:` of the unknown_command error).
 */
export const MISSING_COMMANDS: Readonly<Record<string, string>> = {
  'cnv contacts list': CONTACTS,
  'cnv contacts ls': CONTACTS,
  'cnv contacts search': CONTACTS,
  'cnv events list': EVENTS,
  'cnv events ls': EVENTS,
};
