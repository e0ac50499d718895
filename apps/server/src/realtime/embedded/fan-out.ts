/**
 * Several instances, one realtime service: an event published through any instance's events
 * API reaches the subscribers of every instance's embedded endpoint. The instance that took the
 * request delivers to its own subscribers at once and sends the delivery to the others over the
 * `InstanceBus` (PostgreSQL `LISTEN`/`NOTIFY`), each of which delivers it to its own. Presence
 * members stay per instance (a user's presence channel is theirs alone).
 */
import type { InstanceBus } from '../../events/instance-bus';
import type { EmbeddedPusher, PusherDelivery } from './embedded-pusher';

/** The bus topic of realtime deliveries. */
export const DELIVERY_TOPIC = 'realtime.delivery';

/** What an instance publishes through: its endpoint, and the other instances'. */
export interface FannedOutEndpoint {
  /** Delivers here and sends to the other instances. */
  publish(delivery: PusherDelivery): void;
  /** Whether `delivery` is small enough to reach the other instances. */
  fits(delivery: PusherDelivery): boolean;
  /** Stops taking deliveries from the other instances. */
  close(): void;
}

/** Joins `endpoint` to the other instances' endpoints over `bus`. */
export function fanOut(
  endpoint: Pick<EmbeddedPusher, 'publish'>,
  bus: InstanceBus,
  onError: (error: unknown) => void,
): FannedOutEndpoint {
  const unsubscribe = bus.subscribe(DELIVERY_TOPIC, (payload) => {
    const delivery = asDelivery(payload);
    if (delivery) endpoint.publish(delivery);
  });
  return {
    publish(delivery) {
      endpoint.publish(delivery);
      bus.publish(DELIVERY_TOPIC, delivery).catch(onError);
    },
    fits: (delivery) => Buffer.byteLength(JSON.stringify(delivery)) <= bus.maxPayloadBytes,
    close: unsubscribe,
  };
}

/** A delivery as another instance of this product sent it, or null. */
function asDelivery(payload: unknown): PusherDelivery | null {
  if (typeof payload !== 'object' || payload === null) return null;
  const { channels, event, data, exceptSocketId } = payload as Record<string, unknown>;
  if (!Array.isArray(channels) || !channels.every((c) => typeof c === 'string')) return null;
  if (typeof event !== 'string' || typeof data !== 'string') return null;
  return {
    channels,
    event,
    data,
    exceptSocketId: typeof exceptSocketId === 'string' ? exceptSocketId : undefined,
  };
}
