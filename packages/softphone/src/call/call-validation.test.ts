import { describe, expect, it } from 'vitest';
import { fakeEnvironment, fakeStream } from '../testing/fake-platform';
import { openCall } from '../testing/scenarios';
import { checkFeedback } from './feedback';
import { checkInputStream } from './media-session';

describe('feedback (spec section 5)', () => {
  it.each([1, 2, 3, 4, 5])('accepts the score %i', (score) => {
    expect(checkFeedback(score, 'echo')).toEqual({ score, issue: 'echo' });
  });

  it('takes no score as declined', () => {
    expect(checkFeedback(undefined, undefined)).toEqual({ score: null, issue: null });
  });

  it.each([0, 6, 2.5, '3'])('refuses the score %j with an invalid-argument error', (score) => {
    expect(() => checkFeedback(score, undefined)).toThrow(
      expect.objectContaining({
        name: 'InvalidArgumentError',
        message: 'Feedback score must be one of: 1, 2, 3, 4, 5',
      }),
    );
  });

  it('accepts exactly the issues of the spec', () => {
    const issues = [
      'audio-latency',
      'choppy-audio',
      'dropped-call',
      'echo',
      'noisy-call',
      'one-way-audio',
    ];
    for (const issue of issues) expect(checkFeedback(3, issue).issue).toBe(issue);
    expect(() => checkFeedback(3, 'too-loud')).toThrow(
      `Feedback issue must be one of: ${issues.join(', ')}`,
    );
  });
});

describe('call messages (spec section 5)', () => {
  it.each([
    [{ content: undefined, messageType: 'user-defined-message' }, '`content` is empty'],
    [{ content: {}, messageType: 7 }, '`messageType` must be a string.'],
    [{ content: {}, messageType: '' }, '`messageType` must be a non-empty string.'],
  ])('refuses %j: %s', async (message, error) => {
    const { call } = await openCall(fakeEnvironment());
    expect(() => call.sendMessage(message as never)).toThrow(
      expect.objectContaining({ name: 'InvalidArgumentError', message: error }),
    );
  });

  it('needs an open signalling connection', async () => {
    const env = fakeEnvironment();
    const { call } = await openCall(env);
    env.socket().close();
    expect(() => call.sendMessage({ content: {}, messageType: 'user-defined-message' })).toThrow(
      'Could not send CallMessage; Signaling channel is disconnected',
    );
  });

  it('sends one with a voice event sid', async () => {
    const env = fakeEnvironment();
    const { call } = await openCall(env);
    const sid = call.sendMessage({ content: { a: 1 }, messageType: 'user-defined-message' });
    expect(sid).toMatch(/^KX[0-9a-f]{32}$/);
    expect(env.socket().last('message')).toMatchObject({ callsid: 'CA1', voiceeventsid: sid });
  });
});

describe('input streams (spec section 5)', () => {
  it('must not be null during a call', () => {
    expect(() => checkInputStream(null)).toThrow(
      'Can not set input stream to null while in a call',
    );
  });

  it('must have audio tracks', () => {
    expect(() => checkInputStream(fakeStream([]))).toThrow(
      'Supplied input stream has no audio tracks',
    );
  });
});
