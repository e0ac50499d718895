/** Server → client frames of the Pusher protocol, serialised: `data` is a JSON string. */
import { PUSHER_ERRORS, type PusherErrorName } from './errors';

/** A frame carrying `data` (serialised to a JSON string unless it already is one). */
export function eventFrame(event: string, data: unknown, channel?: string): string {
  const payload = typeof data === 'string' ? data : JSON.stringify(data);
  return JSON.stringify(
    channel === undefined ? { event, data: payload } : { event, channel, data: payload },
  );
}

/** `pusher:error` (its data is an object, as hosted Pusher sends it). */
export function errorFrame(name: PusherErrorName, detail?: string): string {
  const { code, message } = PUSHER_ERRORS[name];
  return JSON.stringify({
    event: 'pusher:error',
    data: { code, message: detail ? `${message} ${detail}` : message },
  });
}
