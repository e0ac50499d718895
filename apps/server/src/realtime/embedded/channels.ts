/**
 * Who is subscribed to what: the channels of the embedded endpoint, with the members of each
 * presence channel. A member is one user id, however many sockets it has on the channel:
 * `member_added` goes out for its first socket and `member_removed` after its last.
 */

/** The kind of a channel, from its name prefix. */
export type ChannelKind = 'public' | 'private' | 'presence';

/** A channel's kind: `presence-…`, `private-…`, or public. */
export function channelKind(channel: string): ChannelKind {
  if (channel.startsWith('presence-')) return 'presence';
  if (channel.startsWith('private-')) return 'private';
  return 'public';
}

/** A subscriber: one client socket. */
export interface Subscriber {
  readonly socketId: string;
  /** Sends a text frame (dropped when the socket is no longer open). */
  send(frame: string): void;
}

/** A presence member as the protocol shows it. */
export interface PresenceMember {
  user_id: string;
  user_info?: unknown;
}

/** The `presence` object of `pusher_internal:subscription_succeeded` on a presence channel. */
export interface PresenceSnapshot {
  ids: string[];
  hash: Record<string, unknown>;
  count: number;
}

interface Channel {
  subscribers: Map<string, Subscriber>;
  /** Presence channels: user id → its info and the sockets it is on the channel with. */
  members: Map<string, { info: unknown; sockets: Set<string> }>;
  /** Presence channels: socket id → the user id it joined as. */
  memberOf: Map<string, string>;
}

/** The channel registry of one endpoint. */
export class ChannelRegistry {
  readonly #channels = new Map<string, Channel>();

  /**
   * `onPresence` hears each member's arrival on a presence channel (first socket) and departure
   * (last socket gone), as `member_added` and `member_removed` announce them.
   */
  constructor(
    private readonly onPresence?: (channel: string, userId: string, present: boolean) => void,
  ) {}

  /**
   * Adds `subscriber` to `channel` (as `member` on a presence channel). Returns the member when
   * it is new to the channel (to announce with `member_added`), otherwise `undefined`.
   */
  subscribe(
    channel: string,
    subscriber: Subscriber,
    member?: PresenceMember,
  ): PresenceMember | undefined {
    let entry = this.#channels.get(channel);
    if (!entry) {
      entry = { subscribers: new Map(), members: new Map(), memberOf: new Map() };
      this.#channels.set(channel, entry);
    }
    entry.subscribers.set(subscriber.socketId, subscriber);
    if (!member || entry.memberOf.has(subscriber.socketId)) return undefined;
    entry.memberOf.set(subscriber.socketId, member.user_id);
    const existing = entry.members.get(member.user_id);
    if (existing) {
      existing.sockets.add(subscriber.socketId);
      return undefined;
    }
    entry.members.set(member.user_id, {
      info: member.user_info,
      sockets: new Set([subscriber.socketId]),
    });
    this.onPresence?.(channel, member.user_id, true);
    return member;
  }

  /**
   * Removes the socket from `channel`. Returns the user id whose last socket left a presence
   * channel (to announce with `member_removed`), otherwise `undefined`.
   */
  unsubscribe(channel: string, socketId: string): string | undefined {
    const entry = this.#channels.get(channel);
    if (!entry) return undefined;
    entry.subscribers.delete(socketId);
    const userId = entry.memberOf.get(socketId);
    let gone: string | undefined;
    if (userId !== undefined) {
      entry.memberOf.delete(socketId);
      const member = entry.members.get(userId);
      member?.sockets.delete(socketId);
      if (member && member.sockets.size === 0) {
        entry.members.delete(userId);
        gone = userId;
      }
    }
    if (entry.subscribers.size === 0) this.#channels.delete(channel);
    if (gone !== undefined) this.onPresence?.(channel, gone, false);
    return gone;
  }

  /** Whether the socket is subscribed to `channel`. */
  isSubscribed(channel: string, socketId: string): boolean {
    return this.#channels.get(channel)?.subscribers.has(socketId) ?? false;
  }

  /** The subscribers of `channel`. */
  subscribersOf(channel: string): Iterable<Subscriber> {
    return this.#channels.get(channel)?.subscribers.values() ?? [];
  }

  /** The members of a presence channel, as `subscription_succeeded` lists them. */
  presenceOf(channel: string): PresenceSnapshot {
    const members = this.#channels.get(channel)?.members ?? new Map<string, { info: unknown }>();
    const hash: Record<string, unknown> = {};
    for (const [id, { info }] of members) hash[id] = info ?? null;
    return { ids: [...members.keys()], hash, count: members.size };
  }

  /** How many channels have at least one subscriber. */
  get size(): number {
    return this.#channels.size;
  }
}
