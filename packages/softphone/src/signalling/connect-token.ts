/**
 * Connect tokens (`call.connectToken`, `device.connect({ connectToken })`): a live call's
 * parameters and reconnect token, encoded as the official SDK does
 * (`btoa(encodeURIComponent(JSON.stringify(content)))`, see `ConnectTokenContent` in
 * `@leadline/contracts/signalling`), so a token made by either SDK works with both.
 */
import type { ConnectTokenContent } from '@leadline/contracts/signalling';
import { InvalidArgumentError } from '../errors/errors';

/** Encodes a connect token. */
export function encodeConnectToken(content: ConnectTokenContent): string {
  return btoa(encodeURIComponent(JSON.stringify(content)));
}

/**
 * Decodes a connect token; throws `InvalidArgumentError` 'Cannot parse connectToken' when it is
 * not one, 'Invalid connectToken' when it lacks the call id or the reconnect token.
 */
export function decodeConnectToken(token: string): ConnectTokenContent {
  let content: Partial<ConnectTokenContent> | null;
  try {
    content = JSON.parse(decodeURIComponent(atob(token))) as Partial<ConnectTokenContent> | null;
  } catch {
    throw new InvalidArgumentError('Cannot parse connectToken');
  }
  const callSid: unknown = content?.parameters?.CallSid;
  const reconnect: unknown = content?.signalingReconnectToken;
  if (typeof callSid !== 'string' || !callSid || typeof reconnect !== 'string' || !reconnect) {
    throw new InvalidArgumentError('Invalid connectToken');
  }
  return content as ConnectTokenContent;
}
