// `mcat version`, as `mcat --version` (and gh's `gh version`).
import { defineGroup } from '../../command';

export default defineGroup({
  name: 'version',
  description: 'print the version (as --version)',
  examples: ['mcat version'],
  default: () => import('./print'),
});
