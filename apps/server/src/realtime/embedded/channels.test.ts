import { describe, expect, it } from 'vitest';
import { ChannelRegistry, channelKind, type Subscriber } from './channels';

const socket = (socketId: string): Subscriber => ({ socketId, send: () => undefined });

describe('channelKind', () => {
  it.each([
    ['presence-user-1', 'presence'],
    ['private-account-1', 'private'],
    ['account-1', 'public'],
    ['privateish', 'public'],
  ] as const)('%s is %s', (channel, kind) => expect(channelKind(channel)).toBe(kind));
});

describe('ChannelRegistry', () => {
  it('announces a presence member on its first socket and removes it after its last', () => {
    const registry = new ChannelRegistry();
    const alice = { user_id: '1', user_info: { name: 'Alice' } };
    expect(registry.subscribe('presence-a', socket('1.1'), alice)).toEqual(alice);
    expect(registry.subscribe('presence-a', socket('1.2'), alice)).toBeUndefined();
    expect(registry.presenceOf('presence-a')).toEqual({
      ids: ['1'],
      hash: { '1': { name: 'Alice' } },
      count: 1,
    });
    expect(registry.unsubscribe('presence-a', '1.1')).toBeUndefined();
    expect(registry.unsubscribe('presence-a', '1.2')).toBe('1');
    expect(registry.size).toBe(0);
  });

  it('tells who arrives on a presence channel with the first socket and leaves with the last', () => {
    const heard: string[] = [];
    const registry = new ChannelRegistry((channel, userId, present) =>
      heard.push(`${channel} ${userId} ${present ? 'in' : 'out'}`),
    );
    const alice = { user_id: '1', user_info: null };
    registry.subscribe('presence-a', socket('1.1'), alice);
    registry.subscribe('presence-a', socket('1.2'), alice);
    registry.subscribe('public-b', socket('1.3'));
    registry.unsubscribe('presence-a', '1.1');
    expect(heard).toEqual(['presence-a 1 in']);
    registry.unsubscribe('presence-a', '1.2');
    registry.unsubscribe('public-b', '1.3');
    expect(heard).toEqual(['presence-a 1 in', 'presence-a 1 out']);
  });

  it('keeps subscribers per channel and forgets empty channels', () => {
    const registry = new ChannelRegistry();
    registry.subscribe('a', socket('1.1'));
    registry.subscribe('a', socket('1.2'));
    expect([...registry.subscribersOf('a')].map((s) => s.socketId)).toEqual(['1.1', '1.2']);
    expect(registry.isSubscribed('a', '1.2')).toBe(true);
    registry.unsubscribe('a', '1.1');
    registry.unsubscribe('a', '1.2');
    expect(registry.isSubscribed('a', '1.2')).toBe(false);
    expect([...registry.subscribersOf('a')]).toEqual([]);
    expect(registry.size).toBe(0);
  });
});
