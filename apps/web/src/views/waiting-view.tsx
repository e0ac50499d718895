import type { User } from '@leadline/contracts';
import { useMutation } from '@tanstack/react-query';
import { Suspense, lazy, useEffect, useRef, useState } from 'react';
import type { PhoneStatus } from '../console/console-controller';
import { WAITING_TEXT } from '../constants';
import { BottomNav, type NavPanel } from './bottom-nav';
import { ConferencePanel, superviseModes } from './conference-panel';
import { HistoryPanel } from './history-panel';
import { useServices } from '../use-services';
import { PhoneStatusLine } from './phone-status-line';
import { SettingsPanel } from './settings-panel';
import { useFocusOnMount } from '../ui/use-focus-on-mount';

const NEW_CALL_PANEL_ID = 'new-call-panel';
const CONFERENCE_PANEL_ID = 'conference-panel';
const HISTORY_PANEL_ID = 'history-panel';
const SETTINGS_PANEL_ID = 'settings-panel';

// The New Call panel brings the phone input and its country data: loaded when first wanted,
// so the login page's bundle stays without them.
const loadNewCallPanel = () => import('./new-call-panel');
const NewCallPanel = lazy(() =>
  loadNewCallPanel().then((module) => ({ default: module.NewCallPanel })),
);

/** Props of {@link WaitingView}. */
export interface WaitingViewProps {
  readonly phone: PhoneStatus;
  /** A line for the agent (Retry's or Check for lead's answer), or null. */
  readonly notice: string | null;
  readonly user: User;
  /** A number from the launch link (`?url=tel:/…`): the New Call panel opens with it. */
  readonly launchNumber: string | null;
  /** The launch link was used (it opens the panel once). */
  readonly onLaunchHandled: () => void;
  /**
   * The Admin entry (admins only, issue 37): its area is the console screen's, shown in this
   * view's place while open; another entry closes it.
   */
  readonly admin?: AreaEntry | null;
  /** The Floor entry (supervisors and admins, issue 39): an area like Admin's. */
  readonly floor?: AreaEntry | null;
}

/** An entry whose area is the console screen's, shown in the waiting view's place while open. */
export type AreaEntry = NavPanel & { readonly onClose: () => void };

/** What the waiting view shows above its bottom navigation. */
type WaitingPanel =
  | { readonly kind: 'newCall'; readonly phone: string }
  | { readonly kind: 'conference' }
  | { readonly kind: 'history' }
  | { readonly kind: 'settings' }
  | null;

/**
 * Waiting for the next lead, with the softphone's status and the bottom navigation; Call opens
 * the New Call panel in its place.
 */
export function WaitingView({
  phone,
  notice,
  user,
  launchNumber,
  onLaunchHandled,
  admin = null,
  floor = null,
}: WaitingViewProps) {
  const [panel, setPanel] = useState<WaitingPanel>(() =>
    launchNumber === null ? null : { kind: 'newCall', phone: launchNumber },
  );
  const [panelShown, setPanelShown] = useState(panel !== null);
  const callButtonRef = useRef<HTMLButtonElement>(null);
  const adminButtonRef = useRef<HTMLButtonElement>(null);
  const floorButtonRef = useRef<HTMLButtonElement>(null);
  const adminOnly = admin?.open === true;
  const floorOpen = floor?.open === true;
  // Either area takes the waiting view's place.
  const adminOpen = adminOnly || floorOpen;
  const adminWasOpen = useRef(adminOnly);
  const floorWasOpen = useRef(floorOpen);

  useEffect(() => {
    if (launchNumber !== null) onLaunchHandled();
  }, [launchNumber, onLaunchHandled]);

  // Back from a panel: focus returns to the button that opened it.
  useEffect(() => {
    if (panel === null && panelShown) callButtonRef.current?.focus();
  }, [panel, panelShown]);

  // Back from an area (closed, not replaced by the other): focus returns to its entry.
  useEffect(() => {
    if (adminWasOpen.current && !adminOnly && !floorOpen) adminButtonRef.current?.focus();
    if (floorWasOpen.current && !floorOpen && !adminOnly) floorButtonRef.current?.focus();
    adminWasOpen.current = adminOnly;
    floorWasOpen.current = floorOpen;
  }, [adminOnly, floorOpen]);

  // Another entry takes an area's place.
  const leaveAdmin = () => {
    if (adminOnly) admin?.onClose();
    if (floorOpen) floor?.onClose();
  };
  const toggleAdmin = () => {
    if (!adminOpen) setPanel(null);
    admin?.onToggle();
  };
  const toggleFloor = () => {
    if (!adminOpen) setPanel(null);
    floor?.onToggle();
  };
  const toggleNewCall = () => {
    leaveAdmin();
    setPanelShown(true);
    setPanel((current) => (current?.kind === 'newCall' ? null : { kind: 'newCall', phone: '' }));
  };
  const toggleConference = () => {
    leaveAdmin();
    setPanelShown(true);
    setPanel((current) => (current?.kind === 'conference' ? null : { kind: 'conference' }));
  };
  const toggleHistory = () => {
    leaveAdmin();
    setPanelShown(true);
    setPanel((current) => (current?.kind === 'history' ? null : { kind: 'history' }));
  };
  const toggleSettings = () => {
    leaveAdmin();
    setPanelShown(true);
    setPanel((current) => (current?.kind === 'settings' ? null : { kind: 'settings' }));
  };
  // Supervisors (any of listen, whisper, barge) see the Conference entry.
  const supervises = superviseModes(user).length > 0;

  return (
    <>
      {adminOpen ? null : panel?.kind === 'settings' ? (
        <SettingsPanel id={SETTINGS_PANEL_ID} user={user} onClose={() => setPanel(null)} />
      ) : panel?.kind === 'history' ? (
        <HistoryPanel
          id={HISTORY_PANEL_ID}
          user={user}
          onClose={() => setPanel(null)}
          onNewCall={() => setPanel({ kind: 'newCall', phone: '' })}
        />
      ) : panel?.kind === 'conference' ? (
        <section id={CONFERENCE_PANEL_ID} className="panel" aria-label="Conference agents">
          <h1 className="panel-title">Conference</h1>
          <ConferencePanel user={user} onCall={false} onDone={() => setPanel(null)} />
        </section>
      ) : panel ? (
        <Suspense
          fallback={
            // The Call button controls the panel's id, also while its code loads.
            <section id={NEW_CALL_PANEL_ID} className="panel waiting" aria-busy="true">
              <p className="muted" role="status">
                Loading…
              </p>
            </section>
          }
        >
          <NewCallPanel
            id={NEW_CALL_PANEL_ID}
            user={user}
            phone={phone}
            initialPhone={panel.phone}
            onClose={() => setPanel(null)}
          />
        </Suspense>
      ) : (
        <WaitingPanel phone={phone} notice={notice} focusOnMount={!panelShown} />
      )}
      <BottomNav
        newCallOpen={!adminOpen && panel?.kind === 'newCall'}
        newCallPanelId={NEW_CALL_PANEL_ID}
        history={{
          open: !adminOpen && panel?.kind === 'history',
          panelId: HISTORY_PANEL_ID,
          onToggle: toggleHistory,
        }}
        settings={{
          open: !adminOpen && panel?.kind === 'settings',
          panelId: SETTINGS_PANEL_ID,
          onToggle: toggleSettings,
        }}
        conference={
          supervises
            ? {
                open: !adminOpen && panel?.kind === 'conference',
                panelId: CONFERENCE_PANEL_ID,
                onToggle: toggleConference,
              }
            : null
        }
        admin={
          admin
            ? {
                open: adminOnly,
                panelId: admin.panelId,
                onToggle: toggleAdmin,
              }
            : null
        }
        adminButtonRef={adminButtonRef}
        floor={floor ? { open: floorOpen, panelId: floor.panelId, onToggle: toggleFloor } : null}
        floorButtonRef={floorButtonRef}
        onToggleNewCall={toggleNewCall}
        onPrefetchNewCall={() => void loadNewCallPanel()}
        callButtonRef={callButtonRef}
      />
    </>
  );
}

/**
 * 'Waiting for lead...', the softphone's status, and Check for lead: there is no lead on the
 * card while waiting (so none with a phone number), and the agent may ask the server for one
 * that is waiting; its answer (or Retry's) shows under it.
 */
function WaitingPanel({
  phone,
  notice,
  focusOnMount,
}: {
  readonly phone: PhoneStatus;
  readonly notice: string | null;
  readonly focusOnMount: boolean;
}) {
  const headingRef = useFocusOnMount<HTMLHeadingElement>(focusOnMount);
  const { controller } = useServices();
  const check = useMutation({ mutationFn: () => controller.checkForLead() });
  return (
    <section className="panel waiting" aria-labelledby="waiting-title">
      <div className={`waiting-pulse${phone === 'ready' ? ' is-ready' : ''}`} aria-hidden="true">
        <span />
      </div>
      <h1 id="waiting-title" className="waiting-text" ref={headingRef} tabIndex={-1}>
        {WAITING_TEXT}
      </h1>
      <PhoneStatusLine phone={phone} />
      <button
        type="button"
        className="btn btn-secondary check-lead"
        disabled={phone !== 'ready' || check.isPending}
        aria-busy={check.isPending || undefined}
        onClick={() => check.mutate()}
      >
        Check for lead
      </button>
      <p className="muted waiting-notice" role="status">
        {notice}
      </p>
    </section>
  );
}

/**
 * Shown while the user is being loaded; when the server cannot be reached (`unreachable`) it
 * says so, and that the console keeps trying.
 */
export function LoadingView({ unreachable = false }: { readonly unreachable?: boolean }) {
  return (
    <section className="panel waiting" aria-busy="true">
      <p className="muted" role="status">
        {unreachable ? UNREACHABLE_TEXT : 'Loading…'}
      </p>
    </section>
  );
}

/** What the loading view says while the server cannot be reached. */
export const UNREACHABLE_TEXT =
  'Cannot reach the server. Leadline keeps trying and opens as soon as the connection is back.';
