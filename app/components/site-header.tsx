import { Link } from "react-router";

// Placeholder: the landing-page work replaces this with the full header and drawer.
export function SiteHeader() {
  return (
    <header className="absolute inset-x-0 top-0 z-40 flex h-16 items-center justify-between px-4 text-white">
      <Link to="/" className="font-bold">
        Reward Portal
      </Link>
    </header>
  );
}
