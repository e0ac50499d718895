/**
 * Steps the SDK's unit tests share: a registered device, an incoming call up to `open`, and
 * time passing with the gateway's heartbeats and media flowing.
 */
import { Device, type DeviceOptions } from '../device/device';
import type { Call } from '../call/call';
import type { FakeEnvironment } from './fake-platform';

/** Lets pending promise callbacks run (the fakes resolve at once). */
export async function flush(): Promise<void> {
  for (let i = 0; i < 30; i++) await Promise.resolve();
}

/** A device whose socket is open and whose `listen` was answered (not yet registered). */
export function connectedDevice(
  env: FakeEnvironment,
  options: Omit<DeviceOptions, 'platform'> = {},
  ttlSeconds = 3600,
): { device: Device; registering: Promise<void> } {
  const device = new Device('token-1', { ...options, platform: env.platform });
  const registering = device.register();
  env.socket().open();
  env.socket().deliver('connected', {
    region: 'local',
    edge: 'local',
    home: 'local',
    token: { identity: '7', ttl: ttlSeconds },
  });
  return { device, registering };
}

/** A registered device. */
export async function registeredDevice(
  env: FakeEnvironment,
  options: Omit<DeviceOptions, 'platform'> = {},
): Promise<Device> {
  const { device, registering } = connectedDevice(env, options);
  env.socket().deliver('ready', {});
  await registering;
  return device;
}

/** The gateway rings the device; resolves with the call of the `incoming` event. */
export async function ring(
  env: FakeEnvironment,
  device: Device,
  invite: { callsid?: string; reconnect?: string; parameters?: Record<string, string> } = {},
): Promise<Call> {
  let call: Call | undefined;
  const off = device.on('incoming', (c) => (call = c));
  env.socket().deliver('invite', {
    callsid: invite.callsid ?? 'CA1',
    sdp: 'v=0 gateway-offer',
    parameters: invite.parameters ?? { From: 'client:12', To: '+15550100042' },
    ...(invite.reconnect ? { reconnect: invite.reconnect } : {}),
  });
  await flush();
  off();
  if (!call) throw new Error('no incoming event');
  return call;
}

/** An incoming call, accepted, with media connected: `open`. */
export async function openCall(
  env: FakeEnvironment,
  options: Omit<DeviceOptions, 'platform'> = {},
  invite: Parameters<typeof ring>[2] = { reconnect: 'RT1' },
): Promise<{ device: Device; call: Call }> {
  const device = await registeredDevice(env, options);
  const call = await ring(env, device, invite);
  call.accept();
  await flush();
  env.pc().receiveTrack();
  env.pc().setConnectionState('connected');
  return { device, call };
}

/**
 * Moves time forward in steps (1,000 ms by default): media flows as told, the gateway sends its
 * heartbeat on an open socket, and promise callbacks run after each step.
 */
export async function advance(
  env: FakeEnvironment,
  ms: number,
  media: { send?: boolean; receive?: boolean; lost?: number } = {},
  stepMs = 1000,
): Promise<void> {
  for (let left = ms; left > 0; left -= stepMs) {
    const step = Math.min(stepMs, left);
    env.peerConnections.at(-1)?.flow(step, media);
    env.clock.tick(step);
    const socket = env.sockets.at(-1);
    if (socket?.readyState === 1) socket.deliver('\n');
    await flush();
  }
}
