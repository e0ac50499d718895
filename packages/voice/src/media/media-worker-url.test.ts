import { describe, expect, it } from 'vitest';
import { defaultMediaWorkerUrl } from './media-worker-url';

describe('defaultMediaWorkerUrl', () => {
  it('points at the TypeScript entry when running from sources', () => {
    expect(defaultMediaWorkerUrl().href).toBe(new URL('./media-worker.ts', import.meta.url).href);
    expect(
      defaultMediaWorkerUrl('file:///repo/packages/voice/src/media/worker-media-engine.ts').href,
    ).toBe('file:///repo/packages/voice/src/media/media-worker.ts');
  });

  it('points at media-worker.js beside the bundle', () => {
    expect(defaultMediaWorkerUrl('file:///srv/leadline/apps/server/dist/main.js').href).toBe(
      'file:///srv/leadline/apps/server/dist/media-worker.js',
    );
  });
});
