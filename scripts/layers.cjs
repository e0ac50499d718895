// The dependency-cruiser configuration of one workspace, built from its layer table
// (docs/architecture.md, "Layers"). Each workspace's `.dependency-cruiser.cjs` calls
// `layerConfig` with its table, bottom layer first; `npm run check` runs them all.
//
// The rules:
// - a module imports only modules of its own layer or of layers below it;
// - no import circle, type-only imports included (an interface declared in the file that builds
//   the thing is the usual cause: move the interface down);
// - production code never imports test support, and no module imports an app's sources from
//   outside it;
// - every production module belongs to exactly one layer (checked when the configuration
//   loads, so a new file without a place fails the check with its name).
'use strict';
const { readdirSync } = require('node:fs');
const { join, relative } = require('node:path');

/** Test files and test support: everything else under `src` is production code. */
const TEST_SUPPORT =
  '(\\.test\\.tsx?$|\\.e2e\\.tsx?$|(^|/)test-support/|(^|/)testing/|(^|/)fake-[^/]*$|-under-test\\.tsx?$)';

const sourcesOf = (dir) =>
  readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourcesOf(path);
    return /\.(ts|tsx|mts|cts|js|mjs)$/.test(entry.name) && !entry.name.endsWith('.d.ts')
      ? [path]
      : [];
  });

/**
 * @param {object} options
 * @param {string} options.root the workspace's folder (`__dirname` of its configuration)
 * @param {Array<{ name: string; comment: string; paths: string[] }>} options.layers bottom first;
 *   `paths` are regular expressions over paths relative to the workspace (`src/db/schema.ts`)
 * @param {string} [options.tsConfig] the workspace's tsconfig (default `tsconfig.json`)
 * @param {object[]} [options.rules] further rules of the workspace's own
 */
function layerConfig({ root, layers, tsConfig = 'tsconfig.json', rules = [] }) {
  const testSupport = new RegExp(TEST_SUPPORT);
  const matchers = layers.map((layer) => layer.paths.map((path) => new RegExp(path)));
  const misplaced = [];
  for (const file of sourcesOf(join(root, 'src'))) {
    const path = relative(root, file).split('\\').join('/');
    if (testSupport.test(path)) continue;
    const homes = layers.filter((_, i) => matchers[i].some((matcher) => matcher.test(path)));
    if (homes.length !== 1) {
      misplaced.push(
        `${path}: ${homes.length === 0 ? 'in no layer' : `in ${homes.map((l) => l.name).join(' and ')}`}`,
      );
    }
  }
  if (misplaced.length > 0) {
    throw new Error(
      `Every production module belongs to exactly one layer (.dependency-cruiser.cjs):\n  ${misplaced.join('\n  ')}`,
    );
  }
  const any = (paths) => paths.map((path) => `(${path})`).join('|');
  const againstLayers = layers.slice(0, -1).map((layer, i) => ({
    name: `layer-${layer.name}`,
    severity: 'error',
    comment: `${layer.name} (${layer.comment}) imports only its own layer and those below it`,
    from: { path: any(layer.paths), pathNot: TEST_SUPPORT },
    to: { path: any(layers.slice(i + 1).flatMap((above) => above.paths)) },
  }));
  return {
    forbidden: [
      ...againstLayers,
      {
        name: 'no-circular',
        severity: 'error',
        comment: 'no import circle, type-only imports included',
        from: {},
        to: { circular: true },
      },
      {
        name: 'no-test-support-in-production',
        severity: 'error',
        comment: 'production code never imports test support',
        from: { path: '^src/', pathNot: TEST_SUPPORT },
        to: { path: TEST_SUPPORT },
      },
      {
        name: 'no-reaching-out',
        severity: 'error',
        comment:
          "another workspace is used through its package's entry points, never by a relative path into its files",
        from: {},
        to: { path: '^\\.\\./', dependencyTypes: ['local'] },
      },
      {
        name: 'not-to-unresolvable',
        severity: 'error',
        comment: 'every import resolves',
        from: {},
        to: { couldNotResolve: true },
      },
      ...rules,
    ],
    options: {
      // Other workspaces are checked by their own configuration.
      doNotFollow: { path: ['node_modules', '^\\.\\./'] },
      exclude: { path: '(^|/)(node_modules|dist)/' },
      tsPreCompilationDeps: true,
      tsConfig: { fileName: tsConfig },
      enhancedResolveOptions: {
        exportsFields: ['exports'],
        conditionNames: ['import', 'require', 'node', 'default', 'types'],
        extensions: ['.ts', '.tsx', '.js', '.mjs', '.cjs', '.d.ts'],
      },
    },
  };
}

module.exports = { layerConfig, TEST_SUPPORT };
