// Are these credentials any good? One signed catalogue read checks the consumer key and secret;
// with a token, one signed locker read of one item checks the token (and that it is the user
// id's, when one is given). Used by `auth login` (before saving) and `auth status`.
import type { ApiClient } from '../client/http';
import { ApiError, AuthError, HttpError, McatError } from '../client/errors';

export type CheckState = 'valid' | 'rejected' | 'unreachable' | 'not set' | 'not checked';

export interface CredentialCheck {
  state: CheckState;
  /** why rejected or unreachable, in the service's words where it gave some */
  reason?: string;
}

export interface CredentialChecks {
  consumer: CredentialCheck;
  token: CredentialCheck;
  /** the country the key is not entitled to, when the service said so (2002) */
  countryRefused?: string;
}

type Outcome = { state: 'valid' } | { state: 'rejected' | 'unreachable'; reason: string } | { state: 'country'; reason: string };

/** What a failed read says of the credentials that signed it. */
export function outcomeOf(err: unknown): Outcome {
  if ((err instanceof ApiError || err instanceof AuthError) && err.code === 2002) {
    // the service checks the signature before the country: the credentials passed
    return { state: 'country', reason: err instanceof ApiError ? err.apiMessage || err.message : err.reason };
  }
  if (err instanceof AuthError) return { state: 'rejected', reason: err.reason };
  if (err instanceof HttpError && (err.httpStatus === 401 || err.httpStatus === 403)) return { state: 'rejected', reason: err.message };
  // the server failed (9001, or any 5xx after the retries): it said nothing of the credentials
  if (err instanceof ApiError && (err.code === 9001 || err.httpStatus >= 500)) {
    return { state: 'unreachable', reason: `the service failed (${err.code ?? 'no code'}, HTTP ${err.httpStatus}): ${err.message}` };
  }
  // any other API error (a bad parameter, an unknown id) came after the signature was accepted
  if (err instanceof ApiError) return { state: 'valid' };
  return { state: 'unreachable', reason: err instanceof Error ? err.message : String(err) };
}

async function attempt(read: () => Promise<unknown>): Promise<Outcome> {
  try {
    await read();
    return { state: 'valid' };
  } catch (err) {
    if (!(err instanceof McatError)) throw err;
    return outcomeOf(err);
  }
}

export async function verifyCredentials(
  client: ApiClient,
  o: { country: string; userId?: string; hasToken: boolean },
): Promise<CredentialChecks> {
  const checks: CredentialChecks = { consumer: { state: 'not checked' }, token: { state: o.hasToken ? 'not checked' : 'not set' } };
  const consumer = await attempt(() =>
    client.request('GET', '/1.2/release/details/batch', {
      query: { releaseIds: '1', country: o.country, usageTypes: 'download' },
      auth: 'consumer',
      what: 'credential check',
    }),
  );
  if (consumer.state === 'country') checks.countryRefused = consumer.reason;
  checks.consumer = consumer.state === 'country' ? { state: 'valid' } : consumer;
  if (checks.consumer.state !== 'valid' || !o.hasToken) return checks;
  const token = await attempt(() =>
    client.request('GET', '/1.2/user/locker', {
      query: { country: o.country, pageSize: 1, userId: o.userId },
      auth: 'user',
      what: 'credential check',
    }),
  );
  if (token.state === 'rejected' && o.userId && /access to resource denied/i.test(token.reason)) {
    checks.token = { state: 'rejected', reason: `the token is not user ${o.userId}'s (${token.reason})` };
  } else {
    checks.token = token.state === 'country' ? { state: 'valid' } : token;
  }
  return checks;
}
