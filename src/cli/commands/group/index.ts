import { defineGroup } from '../../command';

export default defineGroup({
  name: 'group',
  description: "a user's playlist groups: replace, add playlists, show",
  commands: {
    replace: () => import('./replace'),
    add: () => import('./add'),
    show: () => import('./show'),
  },
});
