import { describe, expect, it, vi } from 'vitest';
import type { SoundPolicy, SoundPolicyState } from './attention-port';
import { createFakeAttention } from '../test-support/fake-attention';
import { SoundGate } from './sound-gate';

describe('SoundGate', () => {
  it('is allowed, without watching, when the browser lets sound play', async () => {
    const attention = createFakeAttention({ sound: 'allowed' });
    const gate = new SoundGate(attention.sound);
    let changes = 0;
    gate.subscribe(() => (changes += 1));
    gate.start();
    await vi.waitFor(() => expect(gate.getSnapshot()).toBe('allowed'));
    expect(changes).toBe(0);
  });

  it('blocked: re-reads the policy after each interaction until sound is allowed, then stops', async () => {
    const attention = createFakeAttention({ sound: 'blocked' });
    const gate = new SoundGate(attention.sound);
    const seen: string[] = [];
    gate.subscribe(() => seen.push(gate.getSnapshot()));
    gate.start();
    await vi.waitFor(() => expect(gate.getSnapshot()).toBe('blocked'));
    attention.interact();
    await Promise.resolve();
    expect(gate.getSnapshot()).toBe('blocked');
    attention.setSound('allowed');
    attention.interact();
    await vi.waitFor(() => expect(gate.getSnapshot()).toBe('allowed'));
    // No longer watching: a later policy change is not read until the next start.
    attention.setSound('blocked');
    attention.interact();
    await Promise.resolve();
    expect(seen).toEqual(['blocked', 'allowed']);
  });

  it('unlock lifts the block and notifies', async () => {
    const attention = createFakeAttention({ sound: 'blocked' });
    const gate = new SoundGate(attention.sound);
    gate.start();
    await vi.waitFor(() => expect(gate.getSnapshot()).toBe('blocked'));
    await expect(gate.unlock()).resolves.toBe('allowed');
    expect(gate.getSnapshot()).toBe('allowed');
  });

  it('drops a read that a later one overtook, and reads after stop', async () => {
    const answers: ((state: SoundPolicyState) => void)[] = [];
    const policy: SoundPolicy = {
      state: () => new Promise((resolve) => answers.push(resolve)),
      unlock: () => Promise.resolve('allowed'),
      onInteraction: () => () => undefined,
    };
    const gate = new SoundGate(policy);
    gate.start();
    gate.start();
    answers[1]!('allowed');
    answers[0]!('blocked');
    await Promise.resolve();
    await Promise.resolve();
    expect(gate.getSnapshot()).toBe('allowed');
    gate.start();
    gate.stop();
    answers[2]!('blocked');
    await Promise.resolve();
    expect(gate.getSnapshot()).toBe('allowed');
  });
});
