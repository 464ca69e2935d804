import { print } from '../../../output/streams';
import { defineCommand } from '../../command';

declare const __MCAT_VERSION__: string;

export default defineCommand<unknown>({
  name: 'print',
  description: 'print the version',
  groupDefault: true,
  async run() {
    await print(`${typeof __MCAT_VERSION__ === 'string' ? __MCAT_VERSION__ : '0.0.0-dev'}\n`);
  },
});
