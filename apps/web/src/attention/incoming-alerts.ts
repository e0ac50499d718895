/**
 * Makes a ringing call noticed by an agent who is not looking at the console (spec section 4: "On
 * the desktop app an incoming call is also signalled"; issue: a hidden tab raises a browser
 * Notification whose click brings the console to the front).
 *
 * It watches the console: when a call starts ringing it signals the desktop wrapper, and — if the
 * page is out of view and the agent allowed notifications — shows a notification. The
 * notification closes when the call stops ringing (answered, auto-accepted, cancelled).
 */
import type { ConsoleState } from '../console/console-machine';
import { INCOMING_NOTIFICATION_TAG } from '../constants';
import type { AttentionPlatform, DesktopIncomingCall, ShownNotification } from './attention-port';

/** The console as the alerts see it. */
export interface ConsoleSource {
  readonly state: ConsoleState;
  subscribe(listener: () => void): () => void;
}

/** What the desktop wrapper is told about the ringing call in `state`. */
export function desktopIncomingCall(state: ConsoleState): DesktopIncomingCall {
  const lead = state.call?.call.lead ?? null;
  return {
    banner: state.banner ?? '',
    callSid: state.call?.callSid ?? '',
    leadName: lead ? lead.name || `${lead.fname} ${lead.lname}`.trim() || null : null,
    phoneNumber: lead ? lead.phone_number_formatted || lead.phone_number : null,
  };
}

/** The notification's body: the lead's name and number, when known. */
export function notificationBody(call: DesktopIncomingCall): string {
  return [call.leadName, call.phoneNumber].filter(Boolean).join(' · ');
}

/**
 * Starts watching `console`; returns the stop. Ringing is noticed once per call (its epoch).
 */
export function watchIncomingCalls(
  console: ConsoleSource,
  attention: AttentionPlatform,
): () => void {
  let ringingEpoch: number | null = null;
  let notification: ShownNotification | null = null;
  const closeNotification = () => {
    notification?.close();
    notification = null;
  };
  const onChange = () => {
    const state = console.state;
    const ringing = state.view === 'ringing';
    if (!ringing) {
      ringingEpoch = null;
      closeNotification();
      return;
    }
    if (ringingEpoch === state.epoch) return;
    ringingEpoch = state.epoch;
    const call = desktopIncomingCall(state);
    attention.desktop.signalIncomingCall(call);
    if (attention.page.isInView() || attention.notifications.permission() !== 'granted') return;
    closeNotification();
    notification = attention.notifications.show(
      { title: call.banner, body: notificationBody(call), tag: INCOMING_NOTIFICATION_TAG },
      () => attention.page.focus(),
    );
  };
  const unsubscribe = console.subscribe(onChange);
  return () => {
    unsubscribe();
    closeNotification();
  };
}
