// `mcat completion SHELL`, and the hidden `mcat __complete playlist-ids|profiles` the scripts call.
import { defineGroup } from '../../command';

export const SHELLS = ['bash', 'zsh', 'fish'];

export default defineGroup({
  name: 'completion',
  description: 'print a shell completion script (bash, zsh or fish)',
  arguments: [{ name: '<shell>', description: SHELLS.join(', '), complete: SHELLS }],
  examples: ['source <(mcat completion bash)', 'mkdir -p ~/.config/fish/completions && mcat completion fish > ~/.config/fish/completions/mcat.fish'],
  default: () => import('./script'),
});

export const completeGroup = defineGroup({
  name: '__complete',
  description: '',
  hidden: true,
  arguments: [{ name: '<what>', description: '' }],
  default: () => import('./ids'),
});
