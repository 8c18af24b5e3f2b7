// The icons the public header, the portal header and the quick links share. Decorative only
// (aria-hidden): the control that holds one carries the accessible name.
export function LogoMark() {
  return (
    <svg aria-hidden="true" viewBox="0 0 32 32" className="size-8 shrink-0">
      <rect width="32" height="32" rx="8" fill="#fbbf24" />
      <path d="M7 14h18v11a2 2 0 0 1-2 2H9a2 2 0 0 1-2-2z" fill="#2e1065" />
      <path d="M5 10h22v4H5z M15 10h2v17h-2z" fill="#5b21b6" />
      <path
        d="M16 10c-2-4-7-4-6-1 1 2 4 1 6 1zm0 0c2-4 7-4 6-1-1 2-4 1-6 1z"
        fill="none"
        stroke="#2e1065"
        strokeWidth="1.6"
      />
    </svg>
  );
}

export function ExternalIcon({ className = "size-4 shrink-0" }: { className?: string }) {
  return (
    <svg aria-hidden="true" viewBox="0 0 20 20" className={className} fill="none" stroke="currentColor" strokeWidth="2">
      <path
        strokeLinecap="round"
        strokeLinejoin="round"
        d="M11 4h5v5M16 4l-7 7M8 5H5a1 1 0 0 0-1 1v9a1 1 0 0 0 1 1h9a1 1 0 0 0 1-1v-3"
      />
    </svg>
  );
}

export function MenuIcon() {
  return (
    <svg aria-hidden="true" viewBox="0 0 24 24" className="size-6" fill="none" stroke="currentColor" strokeWidth="2">
      <path strokeLinecap="round" d="M4 7h16M4 12h16M4 17h16" />
    </svg>
  );
}

export function CloseIcon() {
  return (
    <svg aria-hidden="true" viewBox="0 0 24 24" className="size-6" fill="none" stroke="currentColor" strokeWidth="2">
      <path strokeLinecap="round" d="M6 6l12 12M18 6L6 18" />
    </svg>
  );
}
