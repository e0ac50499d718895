/**
 * How a call ends: after someone leaves or a ring ends, the call goes on while an agent who
 * keeps it is on it, waits on hold while someone is rung to take it, is offered again, or is
 * over. Over: everyone leaves, rings stop, its length and final status are stored through the
 * transition table (`call-status.ts`), and the agents who worked it wrap up. Runs inside the
 * call's turn of the flows' queue (`CallFlows.exclusive`).
 */
import type { Db, DbOrTx } from '../db/database';
import type { CallReason } from '../db/schema';
import type { SettingsCache } from '../profiles/settings-cache';
import type { Router } from '../routing/router';

import type { Telephony } from '../telephony/telephony';
import { DEFAULT_WRAP_UP_SECONDS, type AgentPresence } from '../users/agent-presence';
import { canTransition, isConnected, isFinal, type CallEvent } from './call-status';
import { KEEPS_CALL, WRAPS_UP } from './call-participants';
import type { FloorChanged } from './floor-changes';
import {
  activeParticipants,
  closeCallPhones,
  closeCallUsers,
  findCallById,
  livePhones,
  ringingCallUsers,
  transitionCall,
  updateCall,
  type CallRow,
  type CallUserRow,
} from './calls-repo';
import type { Clock } from '../lib/clock';

/** What ending calls works with: the flows' parts. */
export interface EndingsHost {
  db: Db;
  telephony: Telephony;
  clock: Clock;
  router: Pick<Router, 'cancelRingTimer' | 'offer'>;
  presence: Pick<AgentPresence, 'refresh' | 'startWrapUp'>;
  settings: Pick<SettingsCache, 'profile'>;
  /** Runs `work` in a transaction whose writes routing then sees. */
  transaction(work: (tx: DbOrTx) => Promise<void>): Promise<void>;
  /** Tells the floor a call moved (`floor-changes.ts`). */
  floorChanged: FloorChanged;
}

/** Ends calls, and decides whether a call someone left goes on. */
export class CallEndings {
  readonly #host: EndingsHost;

  constructor(host: EndingsHost) {
    this.#host = host;
  }

  /**
   * The call is over (inside `exclusive`): everyone leaves, rings stop, its length is stored,
   * and the agents who worked it wrap up. `event` says how it ends (`complete` by default).
   */
  async finish(call: CallRow, event: CallEvent = 'complete', reason?: CallReason): Promise<void> {
    this.#host.telephony.hangup(call.sid);
    const now = this.#host.clock.now();
    const working = (await activeParticipants(this.#host.db, call.id)).filter((p) =>
      WRAPS_UP.has(p.type),
    );
    const rung = await ringingCallUsers(this.#host.db, call.id);
    for (const ring of rung) this.#host.router.cancelRingTimer(ring.id);
    await this.#host.transaction(async (tx) => {
      await closeCallUsers(tx, call.id, now);
      await closeCallPhones(tx, call.id, now);
      if (isFinal(call.status)) return;
      const seconds = call.answeredAt
        ? Math.max(0, Math.round((now.getTime() - call.answeredAt.getTime()) / 1000))
        : 0;
      const ending = canTransition(call.status, event) ? event : 'complete';
      await transitionCall(tx, call, ending, {
        endedAt: now,
        seconds,
        held: false,
        ...(reason ? { reason } : {}),
      });
    });
    this.#host.floorChanged(call, 'ended');
    await this.wrapUp(call, working);
    for (const ring of rung) await this.#host.presence.refresh(ring.userId);
  }

  /** The agents who worked a call wrap up for the profile's time (supervisors do not). */
  async wrapUp(call: CallRow, participants: CallUserRow[]): Promise<void> {
    if (participants.length === 0) return;
    const profile = await this.#host.settings.profile(call.profileId);
    const seconds = profile?.wrapUpSeconds ?? DEFAULT_WRAP_UP_SECONDS;
    for (const p of new Set(participants.map((x) => x.userId))) {
      await this.#host.presence.startWrapUp(p, seconds, call.id);
    }
  }

  /**
   * After someone left or a ring ended: the call goes on while an agent who keeps it is on it;
   * while someone is still rung to take it, the lead waits on hold (music). Otherwise it is
   * over, unless `offerAgain` (a transfer nobody took after its requester left, or such a call
   * offered as a lead): a lead still on the line is then offered to the next agent.
   */
  async afterLeave(call: CallRow, offerAgain = false): Promise<void> {
    const fresh = (await findCallById(this.#host.db, call.id)) ?? call;
    if (isFinal(fresh.status)) return;
    const keepers = (await activeParticipants(this.#host.db, fresh.id)).filter((p) =>
      KEEPS_CALL.has(p.type),
    );
    if (keepers.length > 0) {
      const primary = keepers.find((p) => p.userId === fresh.userId) ?? keepers[0]!;
      if (primary.userId !== fresh.userId) {
        await updateCall(this.#host.db, fresh.id, { userId: primary.userId });
      }
      return;
    }
    if (!isConnected(fresh.status)) return;
    const takers = (await ringingCallUsers(this.#host.db, fresh.id)).filter(
      (p) => p.type === 'lead' || p.type === 'transfer',
    );
    if (takers.length > 0) {
      if (!fresh.held) {
        this.#host.telephony.hold(fresh.sid);
        await updateCall(this.#host.db, fresh.id, { held: true });
      }
      return;
    }
    // Nobody keeps the call: a lead who is on the line is offered to the other agents.
    const phones = await livePhones(this.#host.db, fresh.id);
    if (offerAgain && phones.some((p) => p.state === 'answered')) {
      const offered = await this.#host.router.offer(fresh, { type: 'lead', checkHours: false });
      if (offered.kind === 'rang') {
        if (!fresh.held) {
          this.#host.telephony.hold(fresh.sid);
          await updateCall(this.#host.db, fresh.id, { held: true });
        }
        return;
      }
    }
    await this.finish(fresh);
  }
}
