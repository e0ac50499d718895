/**
 * The agents' commands on live calls (spec section 7): conference, transfer, listen / whisper /
 * barge, hold and add-lead. Each checks who may do what (section 6), records it, and tells the
 * telephony provider, inside the call's exclusive section so it never interleaves with the
 * call's events.
 */
import { requireAccountCall } from './account-call';
import { recordSupervision } from './supervision-repo';
import type { ConferenceLeadBody, TransferBody } from '@leadline/contracts';
import { identityOf } from '../auth/access-token';
import type { Db } from '../db/database';
import { AppError } from '../http/errors';
import type { LeadRow } from '../leads/leads-repo';
import { agentState, canJoinConference, canTakeTransfer, findTeam } from '../users/agents-repo';
import type { UserRow } from '../users/users-repo';
import { ROLE_OF, type AddLeadOutcome, type CallFlows } from './call-flows';
import { isConnected, isFinal } from './call-status';
import {
  activeParticipants,
  findCallBySid,
  findLiveParticipation,
  updateCall,
  updateCallUser,
  type CallRow,
} from './calls-repo';

/** Supervisor modes (spec section 6). */
export type SuperviseMode = 'listen' | 'whisper' | 'barge';

/** The call-control service. */
export class CallControl {
  constructor(
    private readonly db: Db,
    private readonly flows: CallFlows,
  ) {}

  /** The user's own live call (the caller of conference / add-lead), or a 409 refusal. */
  async #myLiveCall(user: UserRow): Promise<CallRow> {
    const live = await findLiveParticipation(this.db, user.accountId, user.id);
    if (!live) throw new AppError('NOT_ON_ANY_CALL');
    return live.call;
  }

  /** A call of the account by id (404 otherwise) that is still live (409 otherwise). */
  async #liveAccountCall(user: UserRow, callId: number): Promise<CallRow> {
    const call = await requireAccountCall(this.db, user.accountId, callId);
    if (isFinal(call.status)) throw new AppError('CALL_NOT_ACTIVE');
    return call;
  }

  /** Reads the call again inside its exclusive section (it may have ended meanwhile). */
  async #fresh(call: CallRow): Promise<CallRow> {
    const fresh = await findCallBySid(this.db, call.sid);
    if (!fresh || isFinal(fresh.status)) throw new AppError('CALL_NOT_ACTIVE');
    return fresh;
  }

  async #requireParticipant(call: CallRow, userId: number, callUserId?: number) {
    const mine = (await activeParticipants(this.db, call.id)).find(
      (p) => p.userId === userId && (callUserId === undefined || p.id === callUserId),
    );
    if (!mine) throw new AppError('NOT_ON_CALL');
    return mine;
  }

  /** Adds an available agent to the user's live call (rung as 'Incoming Conference!'). */
  async conference(user: UserRow, targetUserId: number): Promise<void> {
    const call = await this.#myLiveCall(user);
    if (targetUserId === user.id)
      throw new AppError('AGENT_UNAVAILABLE', 'You are already on this call.');
    const target = await agentState(this.db, user.accountId, targetUserId, this.flows.now());
    if (!target) throw new AppError('NOT_FOUND', 'User not found.');
    if (!canJoinConference(target)) throw new AppError('AGENT_UNAVAILABLE');
    await this.flows.exclusive(call.sid, async () => {
      const fresh = await this.#fresh(call);
      // Auto Accept covers a conference invitation (spec section 4), as it does a lead.
      const rung = await this.flows.ringParticipant(
        fresh,
        target.id,
        'conference',
        target.autoaccept,
        user.id,
      );
      if (!rung) throw new AppError('AGENT_UNAVAILABLE', 'This agent could not be rung.');
    });
  }

  /**
   * Transfers the user's call to an agent, or to a team (its agents are offered the call one at
   * a time, longest idle first). When the target answers, the user leaves the call; a target who
   * does not answer leaves the lead with the user (or, if they hung up meanwhile, the lead is
   * offered as a new lead). Listen and whisper calls cannot transfer.
   */
  async transfer(user: UserRow, callId: number, body: TransferBody): Promise<void> {
    const call = await this.#liveAccountCall(user, callId);
    const mine = await this.#requireParticipant(call, user.id, body.call_user_id);
    if (mine.type === 'listen' || mine.type === 'whisper') {
      throw new AppError('FORBIDDEN', 'Listen and whisper calls cannot transfer.');
    }
    if (!isConnected(call.status)) throw new AppError('CALL_NOT_ACTIVE');
    let target: { userId: number } | { teamId: number };
    if ('user_id' in body) {
      if (body.user_id === user.id)
        throw new AppError('AGENT_UNAVAILABLE', 'You are already on this call.');
      const agent = await agentState(this.db, user.accountId, body.user_id, this.flows.now());
      if (!agent) throw new AppError('NOT_FOUND', 'User not found.');
      if (!canTakeTransfer(agent)) throw new AppError('AGENT_UNAVAILABLE');
      target = { userId: agent.id };
    } else {
      const team = await findTeam(this.db, user.accountId, body.team_id);
      if (!team) throw new AppError('NOT_FOUND', 'Team not found.');
      target = { teamId: team.id };
    }
    await this.flows.exclusive(call.sid, async () => {
      const fresh = await this.#fresh(call);
      if (!(await this.flows.startTransfer(fresh, user.id, target))) {
        throw 'teamId' in target
          ? new AppError('TEAM_UNAVAILABLE')
          : new AppError('AGENT_UNAVAILABLE', 'This agent could not be rung.');
      }
    });
  }

  /**
   * A supervisor listens to, whispers to or barges into the call of an agent (`callId` is the
   * agent's `on_call_id`). Already in the call: the mode changes; else the supervisor is rung
   * (auto-answered: they asked for it).
   */
  async supervise(user: UserRow, callId: number, mode: SuperviseMode): Promise<void> {
    const call = await this.#liveAccountCall(user, callId);
    if (!isConnected(call.status))
      throw new AppError('CALL_NOT_ACTIVE', 'This call is not connected yet.');
    await this.flows.exclusive(call.sid, async () => {
      const fresh = await this.#fresh(call);
      const participants = await activeParticipants(this.db, fresh.id);
      const mine = participants.find((p) => p.userId === user.id);
      if (
        mine &&
        (mine.type === 'lead' || mine.type === 'transfer' || mine.type === 'conference')
      ) {
        throw new AppError('AGENT_UNAVAILABLE', 'You are an agent on this call.');
      }
      if (mine) {
        if (mine.type === mode) return;
        await updateCallUser(this.db, mine.id, { type: mode });
        this.flows.telephony.setRole(fresh.sid, identityOf(user.id), ROLE_OF[mode]);
        await recordSupervision(this.db, { callId: fresh.id, userId: user.id, role: mode });
        return;
      }
      const rung = await this.flows.ringParticipant(fresh, user.id, mode, true);
      if (!rung)
        throw new AppError(
          'AGENT_UNAVAILABLE',
          'Your phone is not connected: open the console first.',
        );
      await recordSupervision(this.db, { callId: fresh.id, userId: user.id, role: mode });
    });
  }

  /** Puts the lead of the user's call on hold, or takes it off. */
  async hold(user: UserRow, callId: number, held: boolean): Promise<void> {
    const call = await this.#liveAccountCall(user, callId);
    await this.flows.exclusive(call.sid, async () => {
      const fresh = await this.#fresh(call);
      const mine = await this.#requireParticipant(fresh, user.id);
      if (mine.type === 'listen' || mine.type === 'whisper') {
        throw new AppError('FORBIDDEN', 'Listen and whisper calls cannot hold the lead.');
      }
      if (held) this.flows.telephony.hold(fresh.sid);
      else this.flows.telephony.unhold(fresh.sid);
      await updateCall(this.db, fresh.id, { held });
    });
  }

  /**
   * Adds a lead to the user's live call that has none, dials it in, and resolves once its
   * phone answered or did not (the call goes on either way).
   */
  addLead(
    user: UserRow,
    body: ConferenceLeadBody,
  ): Promise<{ call: CallRow; lead: LeadRow; outcome: AddLeadOutcome; message: string | null }> {
    return this.#liveAccountCall(user, body.call_id).then((call) =>
      this.flows.addLead(call, user, body),
    );
  }
}
