import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The `apps/server` folder, found by walking up from this module: the same answer from the
 * sources (`src/lib/…`) and from the bundle (`dist/main.js`).
 */
export function serverRoot(from: string = import.meta.url): string {
  let dir = dirname(fileURLToPath(from));
  for (;;) {
    const manifest = join(dir, 'package.json');
    if (existsSync(manifest)) {
      const { name } = JSON.parse(readFileSync(manifest, 'utf8')) as { name?: string };
      if (name === '@leadline/server') return dir;
    }
    const parent = dirname(dir);
    if (parent === dir) throw new Error('Cannot find the @leadline/server folder.');
    dir = parent;
  }
}
