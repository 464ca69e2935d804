import { defineGroup } from '../../command';

export default defineGroup({
  name: 'sandbox',
  description: 'the built-in sandbox: a local, stateful implementation of the whole API with demo data',
  commands: {
    start: () => import('./start'),
    info: () => import('./info'),
    reset: () => import('./reset'),
  },
});
