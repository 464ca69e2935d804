// The data directory the sandbox commands work in: --data, else MCAT_SANDBOX_DIR or the user data directory.
import { UsageError } from '../../errors';
import type { OptionDef } from '../../command';
import type { Env } from '../../lifecycle';

export const DATA_OPTION: OptionDef = { flags: '--data <dir>', description: 'data directory (default: MCAT_SANDBOX_DIR or the user data directory)', complete: '@file' };

export async function dataDirOf(env: Env, data: string | undefined, mustExist = false): Promise<string> {
  if (data !== undefined) {
    if (data.trim() === '') throw new UsageError('--data must name a directory');
    if (mustExist) {
      const { existsSync } = await import('node:fs');
      if (!existsSync(data)) throw new UsageError(`sandbox data directory ${data} does not exist`, `start a sandbox there first: mcat sandbox start --data ${data}`);
    }
    return data;
  }
  const { defaultSandboxDir } = await import('../../../sandbox/index');
  return defaultSandboxDir(env);
}
