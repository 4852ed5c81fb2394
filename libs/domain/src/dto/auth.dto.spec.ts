import { OnboardParticipantDto, ProvenanceInputDto } from './auth.dto';
import { REMOVE, failedPaths, validatePlain, withField } from './spec-helpers';

describe('OnboardParticipantDto', () => {
  const valid = { name: 'Acme Mining', role: 'producer' };
  const fails = (key: string, value: unknown) => failedPaths(OnboardParticipantDto, withField(valid, key, value));

  it('accepts a body with and without provenance', () => {
    expect(failedPaths(OnboardParticipantDto, valid)).toEqual([]);
    const { errors, instance } = validatePlain(OnboardParticipantDto, {
      ...valid,
      provenance: { name: 'Jwaneng', type: 'mine', country_code: 'BW' },
    });
    expect(errors).toEqual([]);
    expect(instance.provenance).toBeInstanceOf(ProvenanceInputDto);
    expect(fails('provenance', { name: 'Jwaneng', type: 'mine', country_code: null })).toEqual([]);
    expect(fails('provenance', null)).toEqual([]);
  });
  it('name is 1..200 characters', () => {
    expect(fails('name', 'x'.repeat(200))).toEqual([]);
    expect(fails('name', '')).toEqual(['name']);
    expect(fails('name', 'x'.repeat(201))).toEqual(['name']);
    expect(fails('name', REMOVE)).toEqual(['name']);
  });
  it.each(['producer', 'manufacturer', 'retailer', 'grading_lab', 'non_participant'])('role accepts %p', (role) => expect(fails('role', role)).toEqual([]));
  it.each(['admin', REMOVE, 'Producer'])('role rejects %p', (role) => expect(fails('role', role)).toEqual(['role']));
  it('checks provenance members', () => {
    expect(fails('provenance', { type: 'mine' })).toEqual(['provenance.name']);
    expect(fails('provenance', { name: 'n' })).toEqual(['provenance.type']);
    expect(fails('provenance', { name: 'n', type: 't', country_code: 'bw' })).toEqual(['provenance.country_code']);
    expect(fails('provenance', { name: 'n', type: 't', country_code: 'ZZ' })).toEqual(['provenance.country_code']);
    expect(fails('provenance', { name: 'n', type: 't', country_code: 'BWA' })).toEqual(['provenance.country_code']);
    expect(fails('provenance', { name: 'n', type: 't', region: 'x' })).toEqual(['provenance.region']);
    expect(fails('provenance', [{ name: 'n', type: 't' }])[0]).toBe('provenance');
    expect(fails('provenance', 'mine')[0]).toBe('provenance');
  });
  it('rejects unknown fields', () => expect(fails('client_id', 'x')).toEqual(['client_id']));
});
