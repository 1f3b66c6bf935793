/** A finding's spec citation, linked to the protocol's published page for that part when the view gives one. */
export function SpecLink({ spec, url, label = spec }: { spec: string; url?: string | undefined; label?: string }) {
  return url
    ? <a class="spec-link" href={url} target="_blank" rel="noopener noreferrer" title={`spec ${spec}: the protocol's documentation`}>{label}</a>
    : <>{label}</>;
}
