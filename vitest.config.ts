import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    exclude: ['test/bench/**', 'node_modules/**'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: 'forks',
    // Proxy variables are stripped before any test file loads (see the file).
    setupFiles: ['test/setup/proxy-env.ts'],
  },
});
