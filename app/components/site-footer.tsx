// Placeholder: the landing-page work replaces this with the full footer.
export function SiteFooter() {
  return <footer id="footer" className="bg-brand-900 p-8 text-white" />;
}
