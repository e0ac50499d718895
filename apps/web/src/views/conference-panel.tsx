/**
 * The Conference panel (spec section 2): the shared agent list (agent-picker.tsx) with the
 * status filter All Statuses, Online, On Call. For an agent on a call, Listen, Whisper and Barge
 * buttons, each shown only with its permission, join that call as a supervisor; for an agent who
 * is available and online (in the app, or on mobile), a call button adds them to the caller's
 * own call (only while the caller is on one). The server's refusal shows in the panel.
 */
import type { AgentRow, User } from '@leadline/contracts';
import { useMutation } from '@tanstack/react-query';
import type { SuperviseMode } from '../api/api-client';
import { useServices } from '../use-services';
import { AgentPicker, CallIcon, type StatusFilter } from './agent-picker';

/** The status filter's choices (the spec's order). */
const STATUS_FILTERS: readonly StatusFilter[] = [
  { value: 'all', label: 'All Statuses' },
  { value: 'online', label: 'Online' },
  { value: 'on_call', label: 'On Call' },
];

/** The supervisor roles, each with its permission and how its button says it. */
export const SUPERVISE_MODES: ReadonlyArray<{
  readonly mode: SuperviseMode;
  readonly label: string;
  readonly name: (agent: string) => string;
}> = [
  { mode: 'listen', label: 'Listen', name: (agent) => `Listen to ${agent}` },
  { mode: 'whisper', label: 'Whisper', name: (agent) => `Whisper to ${agent}` },
  { mode: 'barge', label: 'Barge', name: (agent) => `Barge into ${agent}'s call` },
];

/** The roles `user` may take on others' calls (their `listen`, `whisper`, `barge` permissions). */
export function superviseModes(user: User): SuperviseMode[] {
  return SUPERVISE_MODES.map((m) => m.mode).filter((mode) => user.permissions.includes(mode));
}

/** Props of {@link SuperviseButtons}. */
export interface SuperviseButtonsProps {
  /** The agent's name, for the buttons' names. */
  readonly agentName: string;
  /** The roles to offer (the supervisor's permissions). */
  readonly modes: ReadonlySet<SuperviseMode>;
  readonly disabled: boolean;
  readonly onChoose: (mode: SuperviseMode) => void;
}

/** Listen, Whisper and Barge for an agent on a call, each the supervisor may take. */
export function SuperviseButtons({ agentName, modes, disabled, onChoose }: SuperviseButtonsProps) {
  return SUPERVISE_MODES.filter((m) => modes.has(m.mode)).map((m) => (
    <button
      key={m.mode}
      type="button"
      className="btn btn-secondary btn-compact"
      aria-label={m.name(agentName)}
      title={m.name(agentName)}
      disabled={disabled}
      onClick={() => onChoose(m.mode)}
    >
      {m.label}
    </button>
  ));
}

/** Whether `agent` can be called into a conference: available and online in the app or on mobile. */
export function canJoinConference(agent: AgentRow, selfId: number): boolean {
  return (
    agent.id !== selfId &&
    agent.on_call_id === null &&
    agent.is_available &&
    (agent.is_online_app || agent.is_mobile)
  );
}

/** Props of {@link ConferencePanel}. */
export interface ConferencePanelProps {
  readonly user: User;
  /** Whether the user is on a call (its call buttons add an agent to it). */
  readonly onCall: boolean;
  /** After a supervisor action or an added agent was asked for. */
  readonly onDone: () => void;
}

type Choice =
  { kind: 'supervise'; callId: number; mode: SuperviseMode } | { kind: 'add'; userId: number };

/** See the module comment. */
export function ConferencePanel({ user, onCall, onDone }: ConferencePanelProps) {
  const { api } = useServices();
  const modes = new Set(superviseModes(user));
  const act = useMutation({
    mutationFn: (choice: Choice) =>
      choice.kind === 'add'
        ? api.conferenceAgent(choice.userId)
        : api.supervise(choice.callId, choice.mode),
    onSuccess: () => onDone(),
  });

  return (
    <section className="conference" aria-label="Conference">
      <AgentPicker
        statuses={STATUS_FILTERS}
        error={act.error}
        actions={(agent) => {
          const onCallId = agent.on_call_id;
          if (onCallId !== null) {
            if (agent.id === user.id) return null;
            return (
              <SuperviseButtons
                agentName={agent.full_name}
                modes={modes}
                disabled={act.isPending || onCall}
                onChoose={(mode) => act.mutate({ kind: 'supervise', callId: onCallId, mode })}
              />
            );
          }
          if (!onCall || !canJoinConference(agent, user.id)) return null;
          return (
            <button
              type="button"
              className="btn btn-accept btn-icon"
              aria-label={`Add ${agent.full_name} to the call`}
              title={`Add ${agent.full_name} to the call`}
              disabled={act.isPending}
              onClick={() => act.mutate({ kind: 'add', userId: agent.id })}
            >
              <CallIcon />
            </button>
          );
        }}
      />
    </section>
  );
}
