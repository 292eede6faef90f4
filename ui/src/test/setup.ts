// Shared set-up for the unit tests. Component tests clean up after themselves through the
// @testing-library/svelte Vite plugin; nothing else is global yet.
export {};
