// Preloaded with `node --import`: records the URL of every module the process resolves into
// the file named by MCAT_TRACE_LOADS, so a test can tell which bundle chunks a command loaded.
import { register } from 'node:module';

const hook = `
import { appendFileSync } from 'node:fs';
export async function resolve(specifier, context, next) {
  const r = await next(specifier, context);
  if (process.env.MCAT_TRACE_LOADS) appendFileSync(process.env.MCAT_TRACE_LOADS, r.url + '\\n');
  return r;
}`;
register('data:text/javascript,' + encodeURIComponent(hook));
