// `mcat api METHOD PATH`: its arguments and options are the group's own (request.ts runs it).
import { defineGroup } from '../../command';

/** The methods `mcat api` sends (request.ts refuses any other). */
export const METHODS = ['GET', 'POST', 'PUT', 'DELETE', 'PATCH'] as const;

export interface ApiFlags {
  method: string;
  path: string;
  field: string[];
  input?: string;
  xml?: boolean;
  include?: boolean;
  autoCountry: boolean;
  consumerOnly?: boolean;
}

export default defineGroup({
  name: 'api',
  description: 'a signed request to any path of the API with the current profile; prints the raw body (like gh api)',
  arguments: [
    { name: '<method>', description: 'HTTP method: GET, POST, PUT, DELETE or PATCH', complete: METHODS },
    // an API path is no file name: nothing to complete
    { name: '<path>', description: 'path below the base URL, e.g. /1.2/user/locker (a query string may be included)', complete: [] },
  ],
  options: [
    { flags: '-f, --field <key=value>', description: 'a parameter: query for GET/DELETE, form body otherwise (repeatable)', repeatable: true, default: [] },
    { flags: '--input <file>', description: "a JSON request body from a file ('-' for standard input)", complete: '@file' },
    { flags: '--xml', description: 'ask for XML (Accept: application/xml); not with -o json, --json or --jq' },
    { flags: '-i, --include', description: 'print the HTTP status line and response headers before the body' },
    { flags: '--no-auto-country', description: "do not add the profile's country parameter" },
    { flags: '--consumer-only', description: 'sign with the consumer key only (no user token)' },
  ],
  help: 'Exit code: 0 for 2xx, 4 for 401/403, 1 for any other answer (a redirect is reported, never followed).',
  examples: [
    'mcat api GET /1.2/release/details/batch -f releaseIds=100001,100002 -f usageTypes=download',
    'mcat api GET /1.2/user/locker --xml',
    "mcat api PUT '/1.2/user/playlists/groups/ca4cda5a7a2888a359ea1de8?userId=10001' -f name=Mine",
  ],
  default: () => import('./request'),
});
