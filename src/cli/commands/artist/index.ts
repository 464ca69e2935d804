import { defineGroup } from '../../command';

export default defineGroup({
  name: 'artist',
  description: 'catalogue artists',
  commands: {
    releases: () => import('./releases'),
  },
});
