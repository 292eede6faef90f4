/**
 * The main area's view. Each view is one variant of {@link Route}; adding a screen means adding
 * a variant here and a branch in App.svelte.
 */
export type Route = { view: 'library' };

class RouterState {
  route = $state<Route>({ view: 'library' });

  go(route: Route): void {
    this.route = route;
  }
}

export const router = new RouterState();
