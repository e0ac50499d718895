/** The Leadline mark and word mark (inline SVG; no remote images). */
export function Logo() {
  return (
    <span className="logo">
      <svg
        className="logo-mark"
        viewBox="0 0 32 32"
        width="28"
        height="28"
        aria-hidden="true"
        focusable="false"
      >
        <rect width="32" height="32" rx="8" fill="currentColor" />
        <path
          d="M11.2 8.5c.6-.6 1.6-.6 2.1.1l1.7 2.3c.4.6.4 1.4-.1 1.9l-1.1 1.1c.9 1.9 2.4 3.4 4.3 4.3l1.1-1.1c.5-.5 1.3-.6 1.9-.1l2.3 1.7c.7.5.8 1.5.1 2.1l-1.3 1.3c-1 1-2.6 1.3-3.9.7-3.9-1.7-7-4.8-8.7-8.7-.6-1.3-.3-2.9.7-3.9z"
          fill="#fff"
        />
        <path
          d="M19 8.5a5 5 0 0 1 4.5 4.5M19 5.5a8 8 0 0 1 7.5 7.5"
          stroke="#fff"
          strokeWidth="1.6"
          strokeLinecap="round"
          fill="none"
        />
      </svg>
      <span className="logo-word">Leadline</span>
    </span>
  );
}
