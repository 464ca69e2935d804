import { defineGroup } from '../../command';

export default defineGroup({
  name: 'playlist',
  description: "a user's playlists: list, show, create, change details, replace, bulk apply and export",
  commands: {
    list: () => import('./list'),
    show: () => import('./show'),
    create: () => import('./create'),
    details: () => import('./details'),
    replace: () => import('./replace'),
    apply: () => import('./apply'),
    export: () => import('./export'),
  },
});
