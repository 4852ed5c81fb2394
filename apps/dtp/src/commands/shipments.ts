import { MAX_PAGE_SIZE, TRANSFER_LIMIT } from '@dtp/domain';
import { DtpClient, newIdempotencyKey, PlatformSchema, unwrap } from '@dtp/sdk';
import { clientFor } from '../config';
import { EXIT, ExitCode, UsageError } from '../exit-codes';
import { collectIds } from '../ids-file';
import { CliIo, printJson, printTable } from '../io';

type Shipment = PlatformSchema<'InboundShipment'>;
type ShipmentType = PlatformSchema<'ShipmentType'>;

interface Common {
  profile?: string;
  json: boolean;
}

export { SHIPMENT_TYPES } from '../choices';

/** `dtp ship`: a transfer out of the named diamonds to a participant (one shipment, up to 1,000 diamonds). */
export async function ship(io: CliIo, args: string[], opts: Common & { to: string; name: string; type: ShipmentType; from?: string }): Promise<ExitCode> {
  const ids = collectIds(io, args, opts.from, 'ship');
  if (ids.length > TRANSFER_LIMIT) throw new UsageError(`a shipment holds at most ${TRANSFER_LIMIT} diamonds; got ${ids.length}`);
  const dtp = clientFor(io, opts.profile, 'platform');
  const body = { recipient_participant_id: opts.to, name: opts.name, shipment_type: opts.type, diamond_ids: ids };
  // A key of its own, so the SDK may repeat the call after a lost answer without shipping twice.
  const s = await unwrap(dtp.platform.POST('/v2/transfer/out', { body, headers: { 'Idempotency-Key': newIdempotencyKey() } }));
  if (opts.json) printJson(io, s);
  else io.out(`shipment ${s.id} (${s.shipment_type}, ${s.total_diamonds} diamonds) sent: ${s.status}\n`);
  return EXIT.ok;
}

/** `dtp inbound`: shipments sent to the caller, a page at a time (or --all pages). */
export async function inbound(io: CliIo, opts: Common & { type?: ShipmentType; page: number; pageSize: number; all: boolean }): Promise<ExitCode> {
  const dtp = clientFor(io, opts.profile, 'platform');
  const pages: PlatformSchema<'ShipmentList'>[] = [];
  for (let page = opts.page; ; page++) {
    const query = { page, page_size: opts.pageSize, ...(opts.type ? { shipment_type: opts.type } : {}) };
    const list = await unwrap(dtp.platform.GET('/v2/shipment/inbound', { params: { query } }));
    pages.push(list);
    if (!opts.all || page >= list.pages) break;
  }
  const results = pages.flatMap((p) => p.results);
  if (opts.json) printJson(io, opts.all ? { total: results.length, results } : pages[0]);
  else if (results.length === 0) io.out('no inbound shipments\n');
  else {
    printTable(
      io,
      ['id', 'name', 'type', 'status', 'diamonds', 'pending', 'created_at'],
      results.map((s) => [
        s.id,
        s.name,
        s.shipment_type,
        s.status,
        s.total_diamonds,
        s.diamonds.filter((d) => d.transfer_state === 'transfer_in_pending').length,
        s.created_at,
      ]),
    );
    const first = pages[0];
    if (!opts.all && first.pages > first.page) io.out(`page ${first.page} of ${first.pages} (${first.total} shipments); --all for every page\n`);
  }
  return EXIT.ok;
}

/**
 * `dtp accept|reject <shipment_id> [diamond_id...]`: answers the named diamonds of an inbound shipment; with
 * none named, every diamond of it still pending (looked up in the inbound list).
 */
export async function decide(
  io: CliIo,
  decision: 'accept' | 'reject',
  shipmentId: string,
  args: string[],
  opts: Common & { from?: string },
): Promise<ExitCode> {
  const named = args.length > 0 || opts.from ? collectIds(io, args, opts.from, decision) : undefined;
  const dtp = clientFor(io, opts.profile, 'platform');
  const ids = named ?? (await pendingDiamonds(dtp, shipmentId));
  const init = { params: { path: { shipment_id: shipmentId } }, body: { diamond_ids: ids }, headers: { 'Idempotency-Key': newIdempotencyKey() } };
  const s: Shipment = await unwrap(
    decision === 'accept' ? dtp.platform.POST('/v2/transfer/in/{shipment_id}/accept', init) : dtp.platform.POST('/v2/transfer/in/{shipment_id}/reject', init),
  );
  if (opts.json) printJson(io, s);
  else io.out(`${decision === 'accept' ? 'accepted' : 'rejected'} ${ids.length} diamond${ids.length === 1 ? '' : 's'} of shipment ${s.id}: ${s.status}\n`);
  return EXIT.ok;
}

async function pendingDiamonds(dtp: DtpClient, shipmentId: string): Promise<string[]> {
  for (let page = 1; ; page++) {
    const list = await unwrap(dtp.platform.GET('/v2/shipment/inbound', { params: { query: { page, page_size: MAX_PAGE_SIZE } } }));
    const found = list.results.find((s) => s.id === shipmentId);
    if (found) {
      const pending = found.diamonds.filter((d) => d.transfer_state === 'transfer_in_pending').map((d) => d.diamond_id);
      if (pending.length === 0) throw new Error(`shipment ${shipmentId} has no diamond waiting for an answer (status ${found.status})`);
      return pending;
    }
    if (page >= list.pages) throw new Error(`shipment ${shipmentId} is not among your inbound shipments`);
  }
}
