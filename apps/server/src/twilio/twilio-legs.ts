/**
 * What the Twilio provider knows of each call's conference, kept in the database so that several
 * equal instances share it (issue 38): whichever instance a status callback reaches moves the
 * party on by one compare-and-set, so a fact told twice (a repeat, or the leg's callback and the
 * conference's telling the same), or told to two instances at once, is acted on once.
 *
 * - `twilio_parties`: each participant (label, kind, who, role, lifecycle state, removed by a
 *   command, its `CA…` leg). A move by a callback is *pending* until the flows have reacted to
 *   it ({@link TwilioLegs.done}); one an instance left pending when it died is handed out again
 *   by any instance's sweep once its lease has passed ({@link TwilioLegs.claimAbandoned}). A
 *   party that reached `gone` and was reacted to is deleted: a late report finds nothing.
 *   A removal by a command is leased the same way until its REST remove reached Twilio
 *   ({@link TwilioLegs.removeSent}): one its instance died before sending is sent again by
 *   another's sweep ({@link TwilioLegs.claimUnsentRemovals}).
 * - `twilio_conferences`: the `CF…` sid once Twilio names it, and whether the lead is on hold.
 * - `twilio_waiting_callers`: inbound calls the voice webhook received, until `addCaller` joins
 *   one to a call (`claim_*`), whichever instance does it.
 */
import { statesOf, type TransitionTable } from '@leadline/contracts/lib';
import { and, asc, eq, gt, inArray, isNull, lt, or, sql, type SQL } from 'drizzle-orm';
import type { Db } from '../db/database';
import { twilioConferences, twilioParties, twilioWaitingCallers } from '../db/schema';

/** Where a party is in its life. */
export type PartyState = 'dialling' | 'ringing' | 'answered' | 'gone';
/** What Twilio told about a party's leg. */
export type PartyInput = 'ringing' | 'answer' | 'end';

/**
 * ```
 * dialling ─ringing→ ringing ─answer→ answered ─end→ gone
 *     └────────answer──────────────┘  (and end from any state but gone)
 * ```
 * A missing entry is no transition (a repeat or a late report): nothing happens. The state lives
 * in the party's row, shared by the instances: a step is one compare-and-set (`step`), not an
 * in-memory `StateMachine`, and a refused input is ignored, not thrown.
 */
export const PARTY_TRANSITIONS: TransitionTable<PartyState, PartyInput> = {
  dialling: { ringing: 'ringing', answer: 'answered', end: 'gone' },
  ringing: { answer: 'answered', end: 'gone' },
  answered: { end: 'gone' },
  gone: {},
};

/** The states `input` moves a party out of (each input leads to one state). */
function fromStates(input: PartyInput): PartyState[] {
  return statesOf(PARTY_TRANSITIONS).filter(
    (state) => PARTY_TRANSITIONS[state][input] !== undefined,
  );
}

/** How long an instance has to react to a move before another takes it over (ms). */
export const PENDING_LEASE_MS = 10_000;
/** How long an instance has to get a removal to Twilio before another sends it again (ms). */
export const REMOVE_LEASE_MS = 10_000;

/** A move the flows have not reacted to yet. */
export interface PendingMove {
  input: PartyInput;
  /** Twilio's status with it. */
  status: string;
  wasRinging: boolean;
  /** A command had taken the party out before this move: the flows are told nothing. */
  silent: boolean;
}

/** A participant as the provider knows it. */
export interface Party {
  callSid: string;
  label: string;
  kind: 'agent' | 'phone';
  /** The identity (agent) or the participant id (phone: the label itself). */
  id: string;
  role: string;
  state: PartyState;
  /** Taken out by a command: its end is not reported. */
  removed: boolean;
  /** Twilio's `CA…` sid of the leg, once known. */
  legSid: string | null;
  /** The move not reacted to yet, if any. */
  pending?: PendingMove | null;
}

type PartyRow = typeof twilioParties.$inferSelect;

function partyOf(row: PartyRow): Party {
  return {
    callSid: row.callSid,
    label: row.label,
    kind: row.kind,
    id: row.partyId,
    role: row.role,
    state: row.state,
    removed: row.removed,
    legSid: row.legSid,
    pending:
      row.pendingInput === null
        ? null
        : {
            input: row.pendingInput,
            status: row.pendingStatus ?? '',
            wasRinging: row.pendingWasRinging ?? false,
            silent: row.pendingSilent ?? row.removed,
          },
  };
}

/** Parties that are still somewhere (not `gone`, whose end may still be pending). */
const present = sql`${twilioParties.state} <> 'gone'`;

function rowOf(party: Omit<Party, 'removed' | 'pending'> & { removed?: boolean }) {
  return {
    callSid: party.callSid,
    label: party.label,
    kind: party.kind,
    partyId: party.id,
    role: party.role,
    state: party.state,
    removed: party.removed ?? false,
    legSid: party.legSid,
  };
}

/** The roles of a ring that is a reservation (a supervisor's is not: `reserveParticipant`). */
export const RESERVED_ROLES = ['agent', 'conference'];

/** A waiting inbound call `addCaller` claimed. */
export interface ClaimedCaller {
  twilioCallSid: string;
  /** `webhook`: its voice webhook is still answering (and will join it). */
  state: 'webhook' | 'waiting';
}

/** The provider's shared state (see the module comment). */
export class TwilioLegs {
  constructor(private readonly db: Db) {}

  /**
   * Adds a party; false when one with its label is still there (nothing written): live, or gone
   * with its end not reacted to yet.
   */
  async add(party: Omit<Party, 'removed' | 'pending'>): Promise<boolean> {
    const row = rowOf(party);
    const rows = await this.db
      .insert(twilioParties)
      .values(row)
      .onConflictDoUpdate({
        target: [twilioParties.callSid, twilioParties.label],
        set: { ...row, removeUntil: null, pendingSilent: null, createdAt: sql`now()` },
        setWhere: sql`${twilioParties.state} = 'gone' and ${twilioParties.pendingInput} is null`,
      })
      .returning({ label: twilioParties.label });
    return rows.length > 0;
  }

  /** Adds a party, or replaces the one with its label (a call the voice webhook joins). */
  async put(party: Omit<Party, 'removed' | 'pending'>): Promise<void> {
    const row = rowOf(party);
    await this.db
      .insert(twilioParties)
      .values(row)
      .onConflictDoUpdate({
        target: [twilioParties.callSid, twilioParties.label],
        set: {
          ...row,
          pendingInput: null,
          pendingStatus: null,
          pendingWasRinging: null,
          pendingUntil: null,
          pendingSilent: null,
          removeUntil: null,
          createdAt: sql`now()`,
        },
      });
  }

  async party(callSid: string, label: string): Promise<Party | undefined> {
    const [row] = await this.db
      .select()
      .from(twilioParties)
      .where(and(eq(twilioParties.callSid, callSid), eq(twilioParties.label, label), present));
    return row ? partyOf(row) : undefined;
  }

  async partiesOf(callSid: string): Promise<Party[]> {
    const rows = await this.db
      .select()
      .from(twilioParties)
      .where(and(eq(twilioParties.callSid, callSid), present))
      .orderBy(asc(twilioParties.createdAt), asc(twilioParties.label));
    return rows.map(partyOf);
  }

  /**
   * Moves the party on by `input` when that is a transition from where it is (compare-and-set),
   * and its leg is `legSid` or not known yet; the move stays pending (until `now` +
   * {@link PENDING_LEASE_MS}) until {@link done}. Returns the party with its pending move, or null
   * when nothing moved (a repeat, a late report, another instance was first).
   */
  async step(
    callSid: string,
    label: string,
    input: PartyInput,
    status: string,
    now: Date,
    legSid?: string,
  ): Promise<Party | null> {
    const next = PARTY_TRANSITIONS.dialling[input] ?? 'gone';
    const [moved] = await this.db
      .update(twilioParties)
      .set({
        state: next,
        ...(legSid === undefined
          ? {}
          : { legSid: sql`coalesce(${twilioParties.legSid}, ${legSid})` }),
        pendingInput: input,
        pendingStatus: status,
        // The state before the update (a SET reads the row as it was).
        pendingWasRinging: sql`${twilioParties.state} <> 'answered'`,
        // Removed before this move: the command's doing. A removal after it must not silence it.
        pendingSilent: sql`${twilioParties.removed}`,
        pendingUntil: new Date(now.getTime() + PENDING_LEASE_MS),
      })
      .where(
        and(
          eq(twilioParties.callSid, callSid),
          eq(twilioParties.label, label),
          inArray(twilioParties.state, fromStates(input)),
          legSid === undefined
            ? undefined
            : or(isNull(twilioParties.legSid), eq(twilioParties.legSid, legSid)),
        ),
      )
      .returning();
    return moved ? partyOf(moved) : null;
  }

  /**
   * The flows reacted to the party's pending move: it is no longer pending, and a party that is
   * gone is deleted (a late report finds nothing).
   */
  async done(callSid: string, label: string, input: PartyInput): Promise<void> {
    const where = and(
      eq(twilioParties.callSid, callSid),
      eq(twilioParties.label, label),
      eq(twilioParties.pendingInput, input),
    );
    if (input === 'end') {
      await this.db.delete(twilioParties).where(and(where, eq(twilioParties.state, 'gone')));
      return;
    }
    await this.db
      .update(twilioParties)
      .set({
        pendingInput: null,
        pendingStatus: null,
        pendingWasRinging: null,
        pendingUntil: null,
        pendingSilent: null,
      })
      .where(where);
  }

  /**
   * Moves whose lease passed (their instance died before the flows reacted), at most `limit`,
   * each leased again to the caller; two instances never take the same.
   */
  async claimAbandoned(now: Date, limit: number): Promise<Party[]> {
    return this.#claimDue(
      'pendingUntil',
      PENDING_LEASE_MS,
      now,
      limit,
      and(sql`${twilioParties.pendingInput} is not null`, lt(twilioParties.pendingUntil, now)),
    );
  }

  /**
   * The parties whose lease in `column` is due (`due`), at most `limit`, oldest first, each
   * leased again for `leaseMs` to the caller; rows another instance is claiming are passed over.
   */
  async #claimDue(
    column: 'pendingUntil' | 'removeUntil',
    leaseMs: number,
    now: Date,
    limit: number,
    due: SQL | undefined,
  ): Promise<Party[]> {
    const claimed = this.db
      .select({ callSid: twilioParties.callSid, label: twilioParties.label })
      .from(twilioParties)
      .where(due)
      .orderBy(asc(twilioParties[column]))
      .limit(limit)
      .for('update', { skipLocked: true });
    const rows = await this.db
      .update(twilioParties)
      .set({ [column]: new Date(now.getTime() + leaseMs) })
      .where(sql`(${twilioParties.callSid}, ${twilioParties.label}) in ${claimed}`)
      .returning();
    return rows.map(partyOf);
  }

  /**
   * The calls other than `callSid` where agent `identity` still has a leg at Twilio that is
   * ringing (a ring cancelled and not reported ended yet, or one whose reservation has just
   * ended) or that was taken out of its call and not reported gone yet.
   */
  async ringingElsewhere(identity: string, callSid: string): Promise<string[]> {
    const rows = await this.db
      .select({ callSid: twilioParties.callSid })
      .from(twilioParties)
      .where(
        and(
          eq(twilioParties.kind, 'agent'),
          eq(twilioParties.partyId, identity),
          // Ringing, or on a call that was ended for them and not reported left yet.
          or(
            inArray(twilioParties.state, ['dialling', 'ringing']),
            and(eq(twilioParties.state, 'answered'), eq(twilioParties.removed, true)),
          ),
          sql`${twilioParties.callSid} <> ${callSid}`,
        ),
      );
    return rows.map((r) => r.callSid);
  }

  /**
   * Takes out agent `identity`'s legs of other calls, placed before their ring of `callSid`
   * (party `label`), that no command removed: ringing, or answered as the call's agent (not a
   * supervisor's). The database gave the agent this ring (a reservation: a lead, a transfer or a
   * conference invitation), so it holds them on no other call: such a leg is one whose ring the
   * flows ended on an instance that died before cancelling it, or whose answer an instance that
   * died was still reacting to. Returns them, marked removed (a sweep sends their removal if
   * the caller cannot).
   */
  async supersede(identity: string, callSid: string, label: string, now: Date): Promise<Party[]> {
    const mine = this.db
      .select({ at: twilioParties.createdAt })
      .from(twilioParties)
      .where(and(eq(twilioParties.callSid, callSid), eq(twilioParties.label, label)));
    const rows = await this.db
      .update(twilioParties)
      .set({ removed: true, removeUntil: new Date(now.getTime() + REMOVE_LEASE_MS) })
      .where(
        and(
          eq(twilioParties.kind, 'agent'),
          eq(twilioParties.partyId, identity),
          inArray(twilioParties.state, ['dialling', 'ringing', 'answered']),
          inArray(twilioParties.role, RESERVED_ROLES),
          eq(twilioParties.removed, false),
          sql`${twilioParties.callSid} <> ${callSid}`,
          sql`${twilioParties.createdAt} < (${mine})`,
        ),
      )
      .returning();
    return rows.map(partyOf);
  }

  /** Records the leg's sid once known. */
  async learnLeg(callSid: string, label: string, legSid: string): Promise<void> {
    await this.db
      .update(twilioParties)
      .set({ legSid })
      .where(
        and(
          eq(twilioParties.callSid, callSid),
          eq(twilioParties.label, label),
          isNull(twilioParties.legSid),
        ),
      );
  }

  /**
   * Marks parties removed by a command (their end is not reported), leased until their REST
   * remove reached Twilio ({@link removeSent}); returns them as they were.
   */
  async markRemoved(
    callSid: string,
    now: Date,
    which: { label?: string; kind?: 'agent' | 'phone'; states?: PartyState[] } = {},
  ): Promise<Party[]> {
    const rows = await this.db
      .update(twilioParties)
      .set({ removed: true, removeUntil: new Date(now.getTime() + REMOVE_LEASE_MS) })
      .where(
        and(
          eq(twilioParties.callSid, callSid),
          which.label === undefined ? undefined : eq(twilioParties.label, which.label),
          which.kind === undefined ? undefined : eq(twilioParties.kind, which.kind),
          which.states === undefined ? undefined : inArray(twilioParties.state, which.states),
          eq(twilioParties.removed, false),
        ),
      )
      .returning();
    return rows.map(partyOf);
  }

  /** The removal of the party reached Twilio: no sweep sends it again. */
  async removeSent(callSid: string, label: string): Promise<void> {
    await this.db
      .update(twilioParties)
      .set({ removeUntil: null })
      .where(and(eq(twilioParties.callSid, callSid), eq(twilioParties.label, label)));
  }

  /**
   * Removals whose lease passed (their instance died before Twilio had them), at most `limit`,
   * each leased again to the caller; two instances never take the same.
   */
  async claimUnsentRemovals(now: Date, limit: number): Promise<Party[]> {
    return this.#claimDue(
      'removeUntil',
      REMOVE_LEASE_MS,
      now,
      limit,
      and(lt(twilioParties.removeUntil, now), present),
    );
  }

  /** Whether the party is gone or taken out by a command. */
  async isRemoved(callSid: string, label: string): Promise<boolean> {
    const party = await this.party(callSid, label);
    return !party || party.removed;
  }

  async setRole(callSid: string, label: string, role: string): Promise<boolean> {
    const rows = await this.db
      .update(twilioParties)
      .set({ role })
      .where(and(eq(twilioParties.callSid, callSid), eq(twilioParties.label, label)))
      .returning({ label: twilioParties.label });
    return rows.length > 0;
  }

  /** Forgets the call: its parties and its conference (late callbacks find nothing). */
  async forget(callSid: string): Promise<void> {
    await this.db.delete(twilioParties).where(eq(twilioParties.callSid, callSid));
    await this.db.delete(twilioConferences).where(eq(twilioConferences.callSid, callSid));
  }

  /** Deletes one party (Twilio refused to create it). */
  async drop(callSid: string, label: string): Promise<void> {
    await this.db
      .delete(twilioParties)
      .where(and(eq(twilioParties.callSid, callSid), eq(twilioParties.label, label)));
  }

  async conferenceSid(callSid: string): Promise<string | undefined> {
    const [row] = await this.db
      .select({ sid: twilioConferences.conferenceSid })
      .from(twilioConferences)
      .where(eq(twilioConferences.callSid, callSid));
    return row?.sid ?? undefined;
  }

  async learnConference(callSid: string, conferenceSid: string): Promise<void> {
    await this.db
      .insert(twilioConferences)
      .values({ callSid, conferenceSid })
      .onConflictDoUpdate({
        target: twilioConferences.callSid,
        set: { conferenceSid },
        setWhere: sql`${twilioConferences.conferenceSid} is distinct from ${conferenceSid}`,
      });
  }

  async held(callSid: string): Promise<boolean> {
    const [row] = await this.db
      .select({ held: twilioConferences.held })
      .from(twilioConferences)
      .where(eq(twilioConferences.callSid, callSid));
    return row?.held ?? false;
  }

  /** Puts the call on hold or takes it off; false when it already was so (nothing written). */
  async setHeld(callSid: string, held: boolean): Promise<boolean> {
    if (!held) {
      const rows = await this.db
        .update(twilioConferences)
        .set({ held: false })
        .where(and(eq(twilioConferences.callSid, callSid), eq(twilioConferences.held, true)))
        .returning({ callSid: twilioConferences.callSid });
      return rows.length > 0;
    }
    const rows = await this.db
      .insert(twilioConferences)
      .values({ callSid, held: true })
      .onConflictDoUpdate({
        target: twilioConferences.callSid,
        set: { held: true },
        setWhere: eq(twilioConferences.held, false),
      })
      .returning({ callSid: twilioConferences.callSid });
    return rows.length > 0;
  }

  /** The voice webhook received an inbound call (a repeat changes nothing). */
  async callerArrived(twilioCallSid: string, from: string, to: string, at: Date): Promise<void> {
    await this.db
      .insert(twilioWaitingCallers)
      .values({ twilioCallSid, fromNumber: from, toNumber: to, state: 'webhook', receivedAt: at })
      .onConflictDoNothing();
  }

  /**
   * Claims the oldest waiting inbound call from `from` to `to` received after `since` for the
   * call's party `label`; null when none waits. Two instances never claim the same one.
   */
  async claimCaller(
    from: string,
    to: string,
    since: Date,
    claim: { callSid: string; label: string },
  ): Promise<ClaimedCaller | null> {
    const oldest = this.db
      .select({ sid: twilioWaitingCallers.twilioCallSid })
      .from(twilioWaitingCallers)
      .where(
        and(
          eq(twilioWaitingCallers.fromNumber, from),
          eq(twilioWaitingCallers.toNumber, to),
          isNull(twilioWaitingCallers.claimCallSid),
          gt(twilioWaitingCallers.receivedAt, since),
        ),
      )
      .orderBy(asc(twilioWaitingCallers.receivedAt))
      .limit(1)
      .for('update', { skipLocked: true });
    const [row] = await this.db
      .update(twilioWaitingCallers)
      .set({ claimCallSid: claim.callSid, claimLabel: claim.label })
      .where(
        and(
          inArray(twilioWaitingCallers.twilioCallSid, oldest),
          isNull(twilioWaitingCallers.claimCallSid),
        ),
      )
      .returning();
    if (!row) return null;
    if (row.state === 'waiting') await this.forgetCaller(row.twilioCallSid, { claimed: true });
    return { twilioCallSid: row.twilioCallSid, state: row.state };
  }

  /**
   * The voice webhook is about to answer: the claim when `addCaller` claimed the call meanwhile
   * (the row is done with), null when it did not (the call now waits; a later claim moves it),
   * undefined when the call is not known.
   */
  async webhookAnswering(
    twilioCallSid: string,
  ): Promise<{ callSid: string; label: string } | null | undefined> {
    const waiting = await this.db
      .update(twilioWaitingCallers)
      .set({ state: 'waiting' })
      .where(
        and(
          eq(twilioWaitingCallers.twilioCallSid, twilioCallSid),
          isNull(twilioWaitingCallers.claimCallSid),
        ),
      )
      .returning({ sid: twilioWaitingCallers.twilioCallSid });
    if (waiting.length > 0) return null;
    const [claimed] = await this.db
      .delete(twilioWaitingCallers)
      .where(eq(twilioWaitingCallers.twilioCallSid, twilioCallSid))
      .returning();
    if (!claimed?.claimCallSid || !claimed.claimLabel) return undefined;
    return { callSid: claimed.claimCallSid, label: claimed.claimLabel };
  }

  /** Forgets a waiting call (unclaimed only, unless `claimed`). */
  async forgetCaller(twilioCallSid: string, options: { claimed?: boolean } = {}): Promise<void> {
    await this.db
      .delete(twilioWaitingCallers)
      .where(
        and(
          eq(twilioWaitingCallers.twilioCallSid, twilioCallSid),
          options.claimed ? undefined : isNull(twilioWaitingCallers.claimCallSid),
        ),
      );
  }

  /** Inbound calls nobody claimed, received after `since`, oldest first; older ones are deleted. */
  async waitingCallers(since: Date): Promise<string[]> {
    await this.db
      .delete(twilioWaitingCallers)
      .where(
        and(isNull(twilioWaitingCallers.claimCallSid), lt(twilioWaitingCallers.receivedAt, since)),
      );
    const rows = await this.db
      .select({ sid: twilioWaitingCallers.twilioCallSid })
      .from(twilioWaitingCallers)
      .where(isNull(twilioWaitingCallers.claimCallSid))
      .orderBy(asc(twilioWaitingCallers.receivedAt));
    return rows.map((r) => r.sid);
  }
}
