/** The OS image catalogue (`GET /v1/images`); the spec's Image has only a `name`. */

/** An OS image as the API returns it (spec: Image). */
export interface ImageRecord {
  /** Image name, passed as `image` when creating a server. */
  name: string;
}

/** The image a server gets in examples and seed data when none is chosen. */
export const DEFAULT_IMAGE = "ubuntu-24.04";

/** Names are `<distribution>-<version>`, newest release of each family first. */
export const IMAGES: readonly ImageRecord[] = [
  { name: "ubuntu-24.04" },
  { name: "ubuntu-22.04" },
  { name: "debian-13" },
  { name: "debian-12" },
  { name: "rocky-9" },
  { name: "alma-9" },
  { name: "centos-stream-9" },
  { name: "fedora-42" },
  { name: "fedora-41" },
  { name: "opensuse-leap-15.6" },
  { name: "freebsd-14" },
  { name: "windows-server-2025" },
  { name: "windows-server-2022" },
];

/** Whether the catalogue offers an image of this name. */
export function isKnownImage(name: string): boolean {
  return IMAGES.some((image) => image.name === name);
}
