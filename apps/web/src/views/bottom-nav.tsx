import type { Ref } from 'react';

/** Props of {@link BottomNav}. */
export interface BottomNavProps {
  /** Whether the New Call panel is open. */
  readonly newCallOpen: boolean;
  /** The New Call panel's element id (while open). */
  readonly newCallPanelId: string;
  /** Opens or closes the New Call panel. */
  readonly onToggleNewCall: () => void;
  /** Starts loading the New Call panel's code before it is needed (hover, focus). */
  readonly onPrefetchNewCall: () => void;
  /** The Call button, to return focus to it when the panel closes. */
  readonly callButtonRef: Ref<HTMLButtonElement>;
  /** The History entry and its panel. */
  readonly history: NavPanel;
  /** The Settings entry and its panel. */
  readonly settings: NavPanel;
  /** The Conference entry, for supervisors (hidden for everyone else, as the spec has it). */
  readonly conference: NavPanel | null;
  /** The Admin entry, for the account's admins (issue 37); absent for everyone else. */
  readonly admin?: NavPanel | null;
  /** The Admin button, to return focus to it when the admin area closes. */
  readonly adminButtonRef?: Ref<HTMLButtonElement>;
  /** The Floor entry, for supervisors and admins (issue 39); absent for everyone else. */
  readonly floor?: NavPanel | null;
  /** The Floor button, to return focus to it when the floor closes. */
  readonly floorButtonRef?: Ref<HTMLButtonElement>;
}

/** A bottom-navigation entry that opens a panel in place of the waiting view. */
export interface NavPanel {
  readonly open: boolean;
  readonly panelId: string;
  readonly onToggle: () => void;
}

/**
 * The waiting state's bottom navigation (spec section 2): Call, Conference (hidden, except for
 * supervisors: users with the listen, whisper or barge permission), History, Settings, Floor for
 * supervisors and admins (issue 39), and Admin for the account's admins (issue 37).
 */
export function BottomNav({
  newCallOpen,
  newCallPanelId,
  onToggleNewCall,
  onPrefetchNewCall,
  callButtonRef,
  history,
  settings,
  conference,
  admin = null,
  adminButtonRef,
  floor = null,
  floorButtonRef,
}: BottomNavProps) {
  return (
    <nav className="bottom-nav" aria-label="Console">
      <button
        ref={callButtonRef}
        type="button"
        className={`nav-item${newCallOpen ? ' is-active' : ''}`}
        aria-expanded={newCallOpen}
        aria-controls={newCallOpen ? newCallPanelId : undefined}
        onClick={onToggleNewCall}
        onPointerEnter={onPrefetchNewCall}
        onFocus={onPrefetchNewCall}
      >
        <svg viewBox="0 0 24 24" width="20" height="20" aria-hidden="true" focusable="false">
          <path
            fill="currentColor"
            d="M6.6 10.8a15.1 15.1 0 0 0 6.6 6.6l2.2-2.2c.3-.3.7-.4 1-.2 1.1.4 2.3.6 3.6.6.6 0 1 .4 1 1V20c0 .6-.4 1-1 1A17 17 0 0 1 3 4c0-.6.4-1 1-1h3.5c.6 0 1 .4 1 1 0 1.3.2 2.5.6 3.6.1.3 0 .7-.2 1l-2.3 2.2z"
          />
        </svg>
        <span>Call</span>
      </button>
      {conference ? (
        <PanelEntry
          entry={conference}
          label="Conference"
          iconPath="M9 11a3.5 3.5 0 1 0 0-7 3.5 3.5 0 0 0 0 7zM2.5 20c.6-3.4 3.2-5.5 6.5-5.5s5.9 2.1 6.5 5.5M16 4.3a3.5 3.5 0 0 1 0 6.4M18 14.8c1.9.8 3.1 2.6 3.5 5.2"
        />
      ) : (
        <button type="button" className="nav-item" hidden>
          <span>Conference</span>
        </button>
      )}
      <PanelEntry
        entry={history}
        label="History"
        iconPath="M3.5 12a8.5 8.5 0 1 0 2.5-6M3.5 4v4h4M12 7.5V12l3 2"
      />
      <PanelEntry
        entry={settings}
        label="Settings"
        iconPath="M4 7h10M18 7h2M4 17h4M12 17h8M16 5v4M10 15v4"
      />
      {floor && (
        <PanelEntry
          entry={floor}
          buttonRef={floorButtonRef}
          label="Floor"
          iconPath="M4 20V10M10 20V4M16 20v-7M21 20H3"
        />
      )}
      {admin && (
        <PanelEntry
          entry={admin}
          buttonRef={adminButtonRef}
          label="Admin"
          iconPath="M12 3l7 3v5c0 4.5-3 8.3-7 10-4-1.7-7-5.5-7-10V6l7-3zM9 12l2 2 4-4"
        />
      )}
    </nav>
  );
}

/** An entry that opens `entry`'s panel in place of the waiting view, with its stroked icon. */
function PanelEntry({
  entry,
  buttonRef,
  label,
  iconPath,
}: {
  readonly entry: NavPanel;
  readonly buttonRef?: Ref<HTMLButtonElement>;
  readonly label: string;
  readonly iconPath: string;
}) {
  return (
    <button
      ref={buttonRef}
      type="button"
      className={`nav-item${entry.open ? ' is-active' : ''}`}
      aria-expanded={entry.open}
      aria-controls={entry.open ? entry.panelId : undefined}
      onClick={entry.onToggle}
    >
      <svg viewBox="0 0 24 24" width="20" height="20" aria-hidden="true" focusable="false">
        <path
          fill="none"
          stroke="currentColor"
          strokeWidth="2"
          strokeLinecap="round"
          d={iconPath}
        />
      </svg>
      <span>{label}</span>
    </button>
  );
}
