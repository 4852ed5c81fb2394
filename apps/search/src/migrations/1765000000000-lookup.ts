import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The lookup by what people hold (DESIGN.md "Looking a diamond up by what people hold"): the report number, its
 * lab, the certificate number and the inscriptions of each diamond's ACTIVE graded measurement (`record.grading[0]`
 * when `is_active`: platform publishes the active one only), lowercased, as stored generated columns of
 * search_diamonds, so PostgreSQL fills them for the rows already there and keeps them in step with every upsert,
 * deletion marker and rebuild (a deselected or replaced grading stops finding the diamond with the next upsert).
 * Each has its index: B-tree for the single values, GIN for the inscriptions (an array). Also search_shares by
 * diamond, for the passport's "look up by report number" (the diamond's live links).
 */
export class Lookup1765000000000 implements MigrationInterface {
  name = 'Lookup1765000000000';

  async up(q: QueryRunner): Promise<void> {
    // An array of the lowercased texts of a JSON array (null for anything else); immutable, as a generated
    // column requires.
    await q.query(`
      CREATE FUNCTION search_lower_texts(value json) RETURNS text[] LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
        SELECT CASE WHEN json_typeof(value) = 'array' THEN ARRAY(SELECT lower(t) FROM json_array_elements_text(value) AS t WHERE t IS NOT NULL) END
      $$`);
    const active = `(record->'grading'->0->>'is_active') = 'true'`;
    await q.query(`
      ALTER TABLE search_diamonds
        ADD COLUMN lookup_report_number text
          GENERATED ALWAYS AS (CASE WHEN ${active} THEN lower(record->'grading'->0->>'grader_report_number') END) STORED,
        ADD COLUMN lookup_grading_lab text
          GENERATED ALWAYS AS (CASE WHEN ${active} THEN lower(record->'grading'->0->>'grading_lab') END) STORED,
        ADD COLUMN lookup_certificate_number text
          GENERATED ALWAYS AS (CASE WHEN ${active} THEN lower(record->'grading'->0->>'grader_certificate_number') END) STORED,
        ADD COLUMN lookup_inscriptions text[]
          GENERATED ALWAYS AS (CASE WHEN ${active} THEN search_lower_texts(record->'grading'->0->'grader_inscription_numbers') END) STORED`);
    await q.query(`CREATE INDEX search_diamonds_lookup_report ON search_diamonds (lookup_report_number) WHERE lookup_report_number IS NOT NULL`);
    await q.query(`CREATE INDEX search_diamonds_lookup_certificate ON search_diamonds (lookup_certificate_number) WHERE lookup_certificate_number IS NOT NULL`);
    await q.query(`CREATE INDEX search_diamonds_lookup_inscriptions ON search_diamonds USING gin (lookup_inscriptions)`);
    await q.query(`CREATE INDEX search_shares_diamond ON search_shares (diamond_id)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX IF EXISTS search_shares_diamond`);
    await q.query(`
      ALTER TABLE search_diamonds DROP COLUMN IF EXISTS lookup_inscriptions, DROP COLUMN IF EXISTS lookup_certificate_number,
        DROP COLUMN IF EXISTS lookup_grading_lab, DROP COLUMN IF EXISTS lookup_report_number`);
    await q.query(`DROP FUNCTION IF EXISTS search_lower_texts(json)`);
  }
}
