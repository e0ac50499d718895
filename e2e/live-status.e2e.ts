/**
 * Agent status, live, through the started product (issue 18): two agents in two Chromium
 * contexts. Agent A (agent1, Alex Rivera) is on a call with the Transfer panel open; agent B
 * (agent2, Blake Chen) logs in, takes a lead, wraps up, chooses Away with the nav bar's Status
 * button and closes the tab. Each change shows in A's open Transfer list without a reload,
 * carried by A's realtime socket (the `agent-status` frame arrives on A's pusher-js WebSocket
 * before the row changes). How long each took is printed, not asserted (the bound is
 * 2 s). Screenshots of the nav bar's Status button at 360 and 1280 px.
 */
import { join } from 'node:path';
import type { Locator, Page } from 'playwright-core';
import { expect, it } from 'vitest';
import { loopbackOnlyContext } from './support/browser';
import {
  answerButton,
  logInToConsole,
  overflowingElements,
  recordResultAndFinish,
} from './support/console';
import { consoleWorld } from './support/console-world';

const world = consoleWorld(1000);
const B_NAME = 'Blake Chen';

/** The `agent-status` events A's page received on its realtime socket, with arrival times. */
interface SeenFrame {
  at: number;
  userId: number;
  status: string;
}

/** Records every `agent-status` event arriving on the page's Pusher-protocol socket. */
function watchRealtime(page: Page): SeenFrame[] {
  const seen: SeenFrame[] = [];
  page.on('websocket', (ws) => {
    if (!new URL(ws.url()).pathname.startsWith('/app/')) return;
    ws.on('framereceived', ({ payload }) => {
      if (typeof payload !== 'string') return;
      const frame = JSON.parse(payload) as { event?: string; data?: string };
      if (frame.event !== 'agent-status' || typeof frame.data !== 'string') return;
      const data = JSON.parse(frame.data) as { user_id: number; status: string };
      seen.push({ at: Date.now(), userId: data.user_id, status: data.status });
    });
  });
  return seen;
}

/** The text next to B's status icon in A's open Transfer list. */
function statusOfB(panel: Locator): Promise<string | null> {
  return panel
    .getByRole('listitem')
    .filter({ hasText: B_NAME })
    .locator('.target-status')
    .textContent({ timeout: 1000 })
    .catch(() => null);
}

it("shows B going on a call, wrapping up, Away and closing the tab in A's open Transfer list, live", async () => {
  const { context: contextA } = await loopbackOnlyContext(world.browser);
  const pageA = await contextA.newPage();
  const framesA = watchRealtime(pageA);
  await logInToConsole(pageA, world.product.url, 'agent1@example.com');
  const reloads: string[] = [];
  pageA.on('framenavigated', (frame) => {
    if (frame === pageA.mainFrame()) reloads.push(frame.url());
  });

  // A takes a lead (B is not logged in yet) and opens Transfer (All Statuses).
  await world.postLead({ fname: 'Jordan', lname: 'Miles', phone: '+15550100046' });
  await expect
    .poll(() => pageA.getByText('Incoming Lead!').isVisible(), { timeout: 15_000 })
    .toBe(true);
  await answerButton(pageA, 'Call').click();
  const onCall = pageA.getByRole('region', { name: 'On call' });
  await onCall.getByRole('button', { name: /^Transfer/ }).click();
  const panel = pageA.getByRole('region', { name: 'Transfer' });
  await expect.poll(() => statusOfB(panel), { timeout: 15_000 }).toBe('Offline');

  const listed = await pageA.request.get(
    `${world.product.url}/api/v1/users/paginated?status=all&search=${encodeURIComponent(B_NAME)}`,
  );
  const bUserId = ((await listed.json()) as { data: Array<{ id: number }> }).data[0]!.id;
  const took: Record<string, number> = {};
  /** Runs `action` and waits until A's list shows B as `shown`, carried by a realtime frame. */
  const change = async (
    what: string,
    status: string,
    shown: string,
    action: () => Promise<void>,
  ) => {
    const framesBefore = framesA.length;
    const startedAt = Date.now();
    await action();
    await expect.poll(() => statusOfB(panel), { timeout: 15_000, interval: 50 }).toBe(shown);
    const shownAt = Date.now();
    took[what] = shownAt - startedAt;
    const frame = framesA
      .slice(framesBefore)
      .find((f) => f.userId === bUserId && f.status === status);
    expect(frame, `an agent-status frame (${status}) on A's socket`).toBeDefined();
    expect(frame!.at).toBeLessThanOrEqual(shownAt);
  };

  const { context: contextB } = await loopbackOnlyContext(world.browser);
  const pageB = await contextB.newPage();
  await change('B logs in', 'available', 'Available', () =>
    logInToConsole(pageB, world.product.url, 'agent2@example.com'),
  );

  // The next lead can only go to B (A is on a call).
  await world.postLead({ fname: 'Casey', lname: 'Ng', phone: '+15550100047' });
  await expect
    .poll(() => pageB.getByText('Incoming Lead!').isVisible(), { timeout: 15_000 })
    .toBe(true);
  await change('B accepts a lead', 'on_call', 'On call', () => answerButton(pageB, 'Call').click());
  await change('B hangs up', 'wrap_up', 'Wrapping up', () =>
    pageB
      .getByRole('region', { name: 'On call' })
      .getByRole('button', { name: /^Hang Up/ })
      .click(),
  );
  await change('B records the result and is done', 'available', 'Available', () =>
    recordResultAndFinish(pageB, 'Contacted', 'Tags & Stages'),
  );

  const statusButton = pageB.getByRole('button', { name: 'Status: Available' });
  for (const width of [360, 1280]) {
    await pageB.setViewportSize({ width, height: 800 });
    await pageB.screenshot({ path: join(world.product.dataDir, `status-${width}.png`) });
    expect(await overflowingElements(pageB)).toEqual([]);
  }
  await change('B sets Away', 'away', 'Away', () => statusButton.click());
  await expect
    .poll(() => pageB.getByRole('button', { name: 'Status: Away' }).isVisible())
    .toBe(true);

  await change('B closes the tab', 'offline', 'Offline', () => pageB.close());

  console.info(`A's Transfer list showed each change of B after (ms): ${JSON.stringify(took)}`);
  // Nothing reloaded A's console since it logged in.
  expect(reloads).toEqual([]);

  await onCall.getByRole('button', { name: /^Hang Up/ }).click();
  await recordResultAndFinish(pageA, 'Contacted', 'Tags & Stages');
  await contextA.close();
  await contextB.close();
}, 180_000);
