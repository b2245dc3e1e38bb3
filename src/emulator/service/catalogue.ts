/** The read-only catalogue every account shares, from ./data unless a test replaces a list. */
import { BLOG_POSTS, COUNTRIES, IMAGES, PLANS } from "../data";
import type { Catalogue } from "../store/state";

export function loadCatalogue(overrides: Partial<Catalogue> = {}): Catalogue {
  return {
    plans: PLANS,
    countries: COUNTRIES,
    images: IMAGES,
    blogPosts: BLOG_POSTS,
    ...overrides,
  };
}
