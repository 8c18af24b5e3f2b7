// A hosted video (the onboarding video, the 'How It Works' video): a <video> with controls for
// a media file, an <iframe> for a video page (a player embed). The URLs come from configuration
// (ONBOARDING_VIDEO_URL, HOW_IT_WORKS_VIDEO_URL) and the CSP allows their origins.

const MEDIA_FILE = /\.(mp4|m4v|webm|ogv|ogg|mov)$/i;

function isMediaFile(url: string): boolean {
  try {
    return MEDIA_FILE.test(new URL(url).pathname);
  } catch {
    return false;
  }
}

export function PortalVideo({ src, title, autoPlay = false }: { src: string; title: string; autoPlay?: boolean }) {
  const frame = "aspect-video w-full rounded-md bg-slate-900";
  if (!isMediaFile(src)) {
    return (
      <iframe
        src={src}
        title={title}
        className={frame}
        allow="autoplay; fullscreen; picture-in-picture"
        allowFullScreen
        loading="lazy"
        referrerPolicy="strict-origin-when-cross-origin"
      />
    );
  }
  return (
    // Muted so that browsers allow the autoplay; the controls turn the sound on.
    <video
      src={src}
      title={title}
      aria-label={title}
      controls
      autoPlay={autoPlay}
      muted={autoPlay}
      playsInline
      preload="metadata"
      className={frame}
    >
      <a href={src} className="text-white underline">
        Watch {title}
      </a>
    </video>
  );
}
