import { defineGroup } from '../../command';

export default defineGroup({
  name: 'profile',
  description: 'stored profiles and the current one (the built-in sandbox is always there)',
  commands: {
    list: () => import('./list'),
    use: () => import('./use'),
  },
});
