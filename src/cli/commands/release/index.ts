import { defineGroup } from '../../command';

export default defineGroup({
  name: 'release',
  description: 'catalogue releases: details in batch, tracks',
  commands: {
    batch: () => import('./batch'),
    tracks: () => import('./tracks'),
  },
});
