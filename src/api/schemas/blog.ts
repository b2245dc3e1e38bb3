/** Blog posts (spec: Blog). */
import { z } from "zod";
import { listOf, PageInfoShape, TimestampSchema } from "./common";

/** A blog post (spec: BlogPost). */
export const BlogPostSchema = z.object({
  /** Post id. */
  id: z.int().describe("Post id"),
  /** URL-friendly short name; the post's address in `GET /v1/blog/posts/{name}`. */
  short_name: z.string().describe("URL-friendly short name"),
  /** Title. */
  title: z.string().describe("Title"),
  /** Short description. */
  description: z.string().nullish().describe("Short description"),
  /** Full content, HTML. Absent from list pages in some services. */
  content: z.string().nullish().describe("Full content, HTML"),
  /** Relative URL of the post. */
  href: z.string().describe("Relative URL of the post"),
  /** Cover image URL. */
  image_url: z.string().nullish().describe("Cover image URL"),
  /** Featured flag. */
  featured: z.boolean().describe("Featured flag"),
  /** Publication date in display form (`May 1, 2024`), not machine-readable. */
  date: z.string().describe("Publication date, display form"),
  /** Publication timestamp. */
  datetime: TimestampSchema.describe("Publication timestamp"),
  /** Estimated reading time text (`5 min`). */
  reading_time: z.string().nullish().describe("Estimated reading time text"),
  /** Category name. */
  category_name: z.string().nullish().describe("Category name"),
  /** Category URL. */
  category_href: z.string().nullish().describe("Category URL"),
  /** Author name. */
  author_name: z.string().nullish().describe("Author name"),
  /** Author page URL. */
  author_href: z.string().nullish().describe("Author page URL"),
  /** Author image URL. */
  author_image_url: z.string().nullish().describe("Author image URL"),
  /** Creation timestamp. */
  created_at: TimestampSchema.describe("Creation timestamp"),
  /** Last update timestamp. */
  updated_at: TimestampSchema.describe("Last update timestamp"),
});
export type BlogPost = z.infer<typeof BlogPostSchema>;

/**
 * One page of blog posts (spec: BlogPosts). Paging counts `posts`; `featured_posts` is the same
 * short list on every page (project decision).
 */
export const BlogPostsPageSchema = z.object({
  /** Regular posts of the current page. */
  posts: listOf(BlogPostSchema).describe("Regular posts"),
  /** Featured posts. */
  featured_posts: listOf(BlogPostSchema).describe("Featured posts"),
  ...PageInfoShape,
});
export type BlogPostsPage = z.infer<typeof BlogPostsPageSchema>;

/** The spec's name for the paged list of posts. */
export const BlogPostsSchema = BlogPostsPageSchema;
export type BlogPosts = BlogPostsPage;
