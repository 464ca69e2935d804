// `mcat auth login|status|logout`. --profile, --base-url, --country and --auth-in are the global
// options (ctx.globals): for login they name the profile to save and the values it keeps.
import { defineGroup } from '../../command';

export default defineGroup({
  name: 'auth',
  description: 'credentials of a profile: log in, show what is in use (never a secret), log out',
  commands: {
    login: () => import('./login'),
    status: () => import('./status'),
    logout: () => import('./logout'),
  },
});
