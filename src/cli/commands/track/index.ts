import { defineGroup } from '../../command';

export default defineGroup({
  name: 'track',
  description: 'catalogue tracks',
  commands: {
    metadata: () => import('./metadata'),
  },
});
