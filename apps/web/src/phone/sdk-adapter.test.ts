import { EventEmitter } from 'node:events';
import { describe, expect, it, vi } from 'vitest';
import { adaptDevice } from './sdk-adapter';

/** An SDK call shaped like both SDKs' (Node-style emitter, as the official SDK's). */
class SdkCall extends EventEmitter {
  muted = false;
  state = 'pending';
  constructor(readonly parameters: Record<string, string | undefined>) {
    super();
  }
  accept = vi.fn(() => (this.state = 'open'));
  reject = vi.fn();
  ignore = vi.fn();
  disconnect = vi.fn();
  mute(shouldMute = true) {
    this.muted = shouldMute;
    this.emit('mute', shouldMute, this);
  }
  isMuted() {
    return this.muted;
  }
  status() {
    return this.state;
  }
}

class SdkDevice extends EventEmitter {
  register = vi.fn(() => Promise.resolve());
  updateToken = vi.fn();
  destroy = vi.fn();
  connect = vi.fn(({ params }: { params: Record<string, string> }) =>
    Promise.resolve(new SdkCall({ CallSid: 'CA1', From: 'client:9', To: params.To })),
  );
}

describe('the phone port over an SDK', () => {
  it('hands listeners one wrapper per SDK call, in every event', () => {
    const sdk = new SdkDevice();
    const device = adaptDevice(sdk);
    const seen: unknown[] = [];
    device.on('incoming', (call) => seen.push(call));
    device.on('error', (error, call) => seen.push(error, call));
    const call = new SdkCall({ CallSid: 'CA7', From: 'client:12' });
    sdk.emit('incoming', call);
    sdk.emit('error', { code: 31005, name: 'ConnectionError', message: 'x' }, call);
    expect(seen[0]).toBe(seen[2]);
    expect(seen[1]).toMatchObject({ code: 31005 });
    const wrapped = seen[0] as ReturnType<typeof adaptDevice> & {
      parameters: unknown;
      accept(): void;
      status(): string;
      on(event: 'mute', l: (muted: boolean, c: unknown) => void): void;
      mute(m?: boolean): void;
    };
    expect(wrapped.parameters).toEqual({ CallSid: 'CA7', From: 'client:12' });
    wrapped.accept();
    expect(call.accept).toHaveBeenCalled();
    expect(wrapped.status()).toBe('open');
    const mutes: unknown[] = [];
    wrapped.on('mute', (muted, c) => mutes.push(muted, c));
    wrapped.mute();
    expect(mutes).toEqual([true, wrapped]);
  });

  it('off removes exactly the listener it was given', () => {
    const sdk = new SdkDevice();
    const device = adaptDevice(sdk);
    const a = vi.fn();
    const b = vi.fn();
    device.on('registered', a);
    device.on('registered', b);
    device.off('registered', a);
    sdk.emit('registered');
    expect(a).not.toHaveBeenCalled();
    expect(b).toHaveBeenCalledOnce();
    device.off('registered', b);
    expect(sdk.listenerCount('registered')).toBe(0);
  });

  it('connects with the params and wraps the new call', async () => {
    const sdk = new SdkDevice();
    const device = adaptDevice(sdk);
    const call = await device.connect({ To: '+15550100042', call_user_id: '5' });
    expect(sdk.connect).toHaveBeenCalledWith({ params: { To: '+15550100042', call_user_id: '5' } });
    expect(call.parameters).toEqual({ CallSid: 'CA1', From: 'client:9', To: '+15550100042' });
    await device.register();
    device.updateToken('t2');
    device.destroy();
    expect(sdk.updateToken).toHaveBeenCalledWith('t2');
    expect(sdk.destroy).toHaveBeenCalled();
  });
});
