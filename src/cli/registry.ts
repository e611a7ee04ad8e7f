import type { Entry, GroupEntry } from '../cmdutil/contract.js';

export const isGroup = (entry: Entry): entry is GroupEntry => 'children' in entry;

/**
 * The command tree. Only names and summaries live here, so `cnv --help` loads no command file;
 * a command's module is imported when it is about to run (or for generated docs and completion).
 */
export const COMMANDS: Entry[] = [
  {
    name: 'contacts',
    summary: 'Create, update and look up contacts',
    aliases: ['contact'],
    examples: [
      'cnv contacts get --email ada@example.com',
      'cnv contacts upsert --email ada@example.com --field firstName=Ada',
      'cnv contacts upsert --file contacts.csv --report report.csv',
      'cnv contacts sync --file contacts.csv --plan',
    ],
    children: [
      {
        name: 'upsert',
        summary: 'Create or update a contact (or many, from a file)',
        load: () => import('../commands/contacts/upsert.js'),
      },
      {
        name: 'sync',
        summary: 'Send only the rows of a file that differ from the live account (--plan shows them first)',
        load: () => import('../commands/contacts/sync.js'),
      },
      { name: 'get', summary: 'Look a contact up by id or email', load: () => import('../commands/contacts/get.js') },
    ],
  },
  {
    name: 'events',
    summary: 'Record custom events',
    aliases: ['event'],
    examples: [
      'cnv events track --event plan_upgraded --user-id user-ada --data \'{"plan":"pro"}\'',
      'cnv events track --file backfill.ndjson --report events-report.csv',
    ],
    children: [
      {
        name: 'track',
        summary: 'Record a custom event for a contact (or many, from a file)',
        load: () => import('../commands/events/track.js'),
      },
    ],
  },
  {
    name: 'workflows',
    summary: 'Trigger API-triggered workflows',
    aliases: ['workflow'],
    examples: ['cnv workflows trigger WORKFLOW_ID --email ada@example.com'],
    children: [
      {
        name: 'trigger',
        summary: 'Trigger a workflow for one contact (never retried when it may have run)',
        load: () => import('../commands/workflows/trigger.js'),
      },
    ],
  },
  {
    name: 'audience',
    summary: 'Static audience membership',
    aliases: ['audiences'],
    examples: [
      'cnv audience add AUDIENCE_ID --email ada@example.com',
      'cnv audience add AUDIENCE_ID --batch people.csv --report report.csv',
      'cnv audience sync AUDIENCE_ID --file pro-plan.csv --plan',
    ],
    children: [
      {
        name: 'add',
        summary: 'Add a contact to a static audience (or many, with --batch FILE)',
        load: () => import('../commands/audience/add.js'),
      },
      {
        name: 'remove',
        summary: 'Remove a contact from a static audience',
        load: () => import('../commands/audience/remove.js'),
      },
      {
        name: 'sync',
        summary: 'Mirror a file into an audience: add what is new, remove only what the job added',
        globals: ['--profile', '--json', '--query', '--quiet'],
        load: () => import('../commands/audience/sync.js'),
      },
    ],
  },
  {
    name: 'campaigns',
    summary: 'Custom campaigns: list, read, add contacts',
    aliases: ['campaign'],
    examples: [
      'cnv campaigns list --all',
      'cnv campaigns get CAMPAIGN_ID',
      'cnv campaigns add CAMPAIGN_ID --batch attendees.ndjson --report report.csv',
    ],
    children: [
      {
        name: 'list',
        summary: 'List custom campaigns (one page, or --all)',
        load: () => import('../commands/campaigns/list.js'),
      },
      {
        name: 'get',
        summary: 'Show a campaign with its statuses and description',
        load: () => import('../commands/campaigns/get.js'),
      },
      {
        name: 'add',
        summary: 'Add a contact to a campaign (or many, with --batch FILE)',
        load: () => import('../commands/campaigns/add.js'),
      },
      {
        name: 'sync',
        summary: 'Add the contacts of a file not added yet (the API cannot remove from a campaign)',
        globals: ['--profile', '--json', '--query', '--quiet'],
        load: () => import('../commands/campaigns/sync.js'),
      },
    ],
  },
  {
    name: 'forms',
    summary: 'Published forms and their fields',
    aliases: ['form'],
    examples: ['cnv forms get FORM_ID'],
    children: [{ name: 'get', summary: 'Show a form and its fields', load: () => import('../commands/forms/get.js') }],
  },
  {
    name: 'fields',
    summary: 'Field definitions and relationship fields',
    aliases: ['field'],
    examples: ['cnv fields list --object-type contact', 'cnv fields create --help'],
    children: [
      { name: 'create', summary: 'Create a custom field', load: () => import('../commands/fields/create.js') },
      { name: 'list', summary: 'List field definitions', load: () => import('../commands/fields/list.js') },
      {
        name: 'relate',
        summary: 'Create a relationship field pair (source and reverse)',
        load: () => import('../commands/fields/relate.js'),
      },
    ],
  },
  {
    name: 'records',
    summary: 'Custom-object records',
    aliases: ['record'],
    examples: [
      'cnv records upsert CUSTOM_OBJECT_ID --file subscriptions.csv --check',
      'cnv records sync CUSTOM_OBJECT_ID --file subscriptions.csv --report sync.csv',
    ],
    children: [
      {
        name: 'upsert',
        summary: 'Create or update custom-object records from a file, in chunks of 200',
        load: () => import('../commands/records/upsert.js'),
      },
      {
        name: 'sync',
        summary: 'Send only the records whose values changed since cnv sent them',
        globals: ['--profile', '--json', '--query', '--quiet'],
        load: () => import('../commands/records/sync.js'),
      },
    ],
  },
  {
    name: 'ledger',
    summary: 'What the sync jobs sent, per account and job: list, show, reset',
    examples: ['cnv ledger list', 'cnv ledger show JOB', 'cnv ledger reset JOB --yes'],
    children: [
      {
        name: 'list',
        summary: 'List the ledgers of the sync jobs',
        globals: ['--json', '--format', '--query'],
        load: () => import('../commands/ledger/list.js'),
      },
      {
        name: 'show',
        summary: "Show one job's ledger (--entries: every key)",
        globals: ['--json', '--format', '--query'],
        load: () => import('../commands/ledger/show.js'),
      },
      {
        name: 'reset',
        summary: "Delete a job's ledger (its next run sends everything and removes nothing)",
        globals: ['--json', '--query'],
        load: () => import('../commands/ledger/reset.js'),
      },
    ],
  },
  {
    name: 'export',
    summary: 'Incremental, resumable exports of contacts and events (exactly once into files)',
    aliases: ['exports'],
    examples: [
      'cnv export contacts --out contacts.ndjson',
      'cnv export email-events --type EMAIL_OPEN --out opens.ndjson',
      'cnv export state list',
    ],
    children: [
      {
        name: 'contacts',
        summary: 'Export contacts created or updated since the last run',
        formatIsFile: true,
        load: () => import('../commands/export/contacts.js'),
      },
      {
        name: 'custom-events',
        summary: 'Export custom events of an occurredAt window, then what is new',
        formatIsFile: true,
        load: () => import('../commands/export/custom-events.js'),
      },
      {
        name: 'email-events',
        summary: 'Export email events of one type (one state per type)',
        formatIsFile: true,
        load: () => import('../commands/export/email-events.js'),
      },
      {
        name: 'state',
        summary: 'Saved export positions: list, show, reset, commit',
        examples: ['cnv export state list', 'cnv export state show KEY', 'cnv export state reset KEY --yes'],
        children: [
          { name: 'list', summary: 'List saved export states', load: () => import('../commands/export/state/list.js') },
          {
            name: 'show',
            summary: 'Show one export state and its run manifests',
            load: () => import('../commands/export/state/show.js'),
          },
          {
            name: 'reset',
            summary: 'Delete an export state (the next run starts over)',
            load: () => import('../commands/export/state/reset.js'),
          },
          {
            name: 'commit',
            summary: 'Make the pending position of a --defer-commit run current',
            load: () => import('../commands/export/state/commit.js'),
          },
        ],
      },
    ],
  },
  {
    name: 'config',
    summary: 'Profiles: API keys and base URLs',
    examples: [
      'printf %s "$CNV_KEY" | cnv config set-key --profile prod --base-url https://api.example.com',
      'cnv config use prod',
      'cnv config list',
      'cnv config remove staging',
    ],
    children: [
      {
        name: 'set-key',
        summary: 'Store an API key for a profile (read from stdin or a hidden prompt)',
        load: () => import('../commands/config/set-key.js'),
      },
      {
        name: 'set-url',
        summary: 'Store the base URL for a profile',
        load: () => import('../commands/config/set-url.js'),
      },
      { name: 'use', summary: 'Make a profile the default', load: () => import('../commands/config/use.js') },
      { name: 'list', summary: 'List profiles', load: () => import('../commands/config/list.js') },
      {
        name: 'remove',
        summary: 'Delete a profile and its API key',
        load: () => import('../commands/config/remove.js'),
      },
      {
        name: 'show',
        summary: 'Show the settings in force (key masked)',
        load: () => import('../commands/config/show.js'),
      },
    ],
  },
  {
    name: 'api',
    summary: 'Send any request to the API (like gh api): auth, retries, rate limit and exit codes included',

    load: () => import('../commands/api/api.js'),
  },
  {
    name: 'doctor',
    summary: 'Check config, key, reachability, auth and which gated endpoints this key may use',
    load: () => import('../commands/doctor/doctor.js'),
  },
  {
    name: 'tap',
    summary: "Run as a Singer tap (Meltano's tap-cnv): contacts, custom and email events into any warehouse",
    globals: ['--format', '--verbose', '--debug', '--quiet', '--timeout', '--max-retries', '--max-retry-wait'],
    markdown: true,
    load: () => import('../commands/tap/tap.js'),
  },
  {
    name: 'target',
    summary: "Run as a Singer target (Meltano's target-cnv): any tap's tables into the account, only what differs",
    globals: ['--format', '--verbose', '--debug', '--quiet', '--timeout', '--max-retries', '--max-retry-wait'],
    markdown: true,
    load: () => import('../commands/target/target.js'),
  },
  {
    name: 'version',
    summary: 'Print the version (--json: with the Node.js version and platform)',
    globals: ['--json', '--format', '--query'],
    load: () => import('../commands/version/version.js'),
  },
  // The emulator serves the API: no profile, key, output format or request options of the client apply.
  {
    name: 'emulator',
    summary: 'Run a local emulator of the API (for demos, tests and CI)',
    globals: ['--json', '--query', '--verbose', '--debug', '--quiet'],
    load: () => import('../commands/emulator/emulator.js'),
  },
];
