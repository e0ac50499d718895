/**
 * Checks of what a page and a call leave behind, shared by the console specs: axe-core's
 * serious and critical violations (every view is also checked by support/view-audit.ts), and a
 * sandbox phone party's recording (what the lead heard).
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import type AxeCore from 'axe-core';
import type { Page } from 'playwright-core';
import { expect } from 'vitest';
import { readWavFile } from '@leadline/voice/dsp';
import { heardTones, toneLevels } from './remote-tones';

let axeSource: string | undefined;

/** axe-core's browser build (`axe.min.js`), read once. */
export function axeCoreSource(): string {
  axeSource ??= readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
  return axeSource;
}

/**
 * Runs axe-core in the page; the serious and critical violations, with their elements. In a page
 * watched by the view audit (support/view-audit.ts) it runs through the audit's queue, as two
 * axe runs at once fail; elsewhere axe-core is added to the page first.
 */
export async function seriousViolations(page: Page): Promise<string[]> {
  const queued = await page.evaluate(
    () =>
      (window as unknown as { __leadlineAxe?: () => Promise<string[]> }).__leadlineAxe?.() ?? null,
  );
  if (queued) return queued;
  await page.addScriptTag({ content: axeCoreSource() });
  return page.evaluate(async () => {
    const { axe } = window as unknown as { axe: typeof AxeCore };
    const result = await axe.run(document, { resultTypes: ['violations'] });
    return result.violations
      .filter((v) => v.impact === 'serious' || v.impact === 'critical')
      .map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
  });
}

/** A call the sandbox phone network placed or received (`GET /api/v1/sandbox/calls`). */
export interface SandboxCall {
  participantId: string;
  to: string;
  from: string | null;
  answeredAt: string | null;
  digits: string;
}

/** The newest sandbox call to (or from) `phone`, as the page's session sees the account's. */
export async function sandboxCallOf(
  page: Page,
  baseUrl: string,
  phone: string,
): Promise<SandboxCall | undefined> {
  const answer = await page.context().request.get(`${baseUrl}/api/v1/sandbox/calls`);
  const { data } = (await answer.json()) as { data: SandboxCall[] };
  return data.filter((c) => c.to === phone || c.from === phone).at(-1);
}

/**
 * The recording of a sandbox phone party (written when its call ends, under the product's data
 * folder), waited for.
 */
export async function partyRecording(dataDir: string, call: SandboxCall) {
  const path = join(
    dataDir,
    'sandbox',
    `${call.participantId.replace(/[^A-Za-z0-9_-]/g, '_')}.wav`,
  );
  await expect
    .poll(
      () =>
        readWavFile(path).then(
          () => true,
          () => false,
        ),
      { timeout: 15_000 },
    )
    .toBe(true);
  return readWavFile(path);
}

/**
 * What a sandbox lead heard, from its recording once its call ended: a function of two
 * wall-clock times answering the `probes` tones heard between them (the recording starts when
 * the lead answered).
 */
export async function leadHearing(
  page: Page,
  product: { url: string; dataDir: string },
  phone: string,
  probes: readonly number[],
): Promise<(fromMs: number, toMs: number) => number[]> {
  const call = await sandboxCallOf(page, product.url, phone);
  if (!call?.answeredAt) throw new Error(`no answered sandbox call to ${phone}`);
  const wav = await partyRecording(product.dataDir, call);
  const answeredMs = Date.parse(call.answeredAt);
  return (fromMs, toMs) => {
    const at = (ms: number) =>
      Math.max(0, Math.round(((ms - answeredMs) / 1000) * wav.sampleRateHz));
    const samples = wav.samples.subarray(at(fromMs), at(toMs));
    expect(samples.length).toBeGreaterThan(wav.sampleRateHz / 2);
    return heardTones(toneLevels({ samples, sampleRateHz: wav.sampleRateHz }, probes));
  };
}
