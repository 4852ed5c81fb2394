import 'reflect-metadata'; // class-transformer's @Type reads design:type metadata
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsDefined, IsIn, IsNotEmpty, IsObject, IsOptional, IsString, MaxLength, ValidateNested } from 'class-validator';
import { entitySpecificTagsField, isoTextField, participantIdField, tagsField } from '../records/api-fields';
import { ID_MAX_LENGTH } from '../rules/limits';
import { IsBoundedJsonObject, IsEntitySpecificTags, IsCalendarDateTime, NoSurroundingWhitespace } from './validators';

/*
 * The members several request bodies share, each declared once: its OpenAPI schema and its validation together,
 * so that the document and the checks cannot drift apart between bodies. Each list is the stack of decorators it
 * replaces read bottom-up (the order TypeScript applies a stack in), so the validation messages keep their order.
 */
const stacked =
  (...topDown: PropertyDecorator[]): PropertyDecorator =>
  (target, key) => {
    for (const decorate of [...topDown].reverse()) decorate(target, key);
  };

/** The caller's own identifier of a diamond (ERP or stock id): a non-empty id, no surrounding whitespace. */
export const ParticipantIdMember = (description: string) =>
  stacked(ApiProperty(participantIdField(description)), IsString(), IsNotEmpty(), MaxLength(ID_MAX_LENGTH), NoSurroundingWhitespace());

/** A required ISO 8601 date-time text, answered as sent. */
export const TimestampMember = (description: string) => stacked(ApiProperty(isoTextField({ description })), IsCalendarDateTime());

/** An optional, nullable ISO 8601 date-time text (absent or null: the body's `description` says what then). */
export const OptionalTimestampMember = (description: string) =>
  stacked(ApiPropertyOptional(isoTextField({ nullable: true, description })), IsOptional(), IsCalendarDateTime());

/** A required nested object, validated member by member as `of` (unknown members refused by its schema). */
export const NestedMember = (of: () => new () => object) =>
  // `type: () => ...` written here: @nestjs/swagger takes a function named `type` for a lazy class reference.
  stacked(ApiProperty({ type: () => of() }), IsDefined(), IsObject(), ValidateNested(), Type(of));

/** `supplementary_tags`: a bounded JSON object, or null. */
export const SupplementaryTagsMember = () => stacked(ApiPropertyOptional(tagsField({ nullable: true })), IsOptional(), IsBoundedJsonObject());

/** `entity_specific_tags`: a bounded JSON object whose known keys are checked (`dit_session_id`), or null. */
export const EntitySpecificTagsMember = () =>
  stacked(
    ApiPropertyOptional(entitySpecificTagsField({ nullable: true })),
    IsOptional(),
    IsEntitySpecificTags(),
    IsBoundedJsonObject({ requireObject: false }),
  );

/** An optional, nullable member of one of the spec's closed scales: `scale` is its ApiEnums entry (name and values). */
export const OptionalEnumMember = (scale: { enum: readonly string[]; enumName: string }, example?: string) =>
  stacked(
    ApiPropertyOptional({ ...scale, enum: [...scale.enum], nullable: true, ...(example !== undefined ? { example } : {}) }),
    IsOptional(),
    IsIn(scale.enum),
  );
