import { Column, CreateDateColumn, Entity, PrimaryColumn } from 'typeorm';

/** A legacy participant's registered client certificate (mutual TLS). Removal keeps the row, with `removed_at`. */
@Entity({ name: 'client_certificates' })
export class ClientCertificateEntity {
  @PrimaryColumn('uuid')
  certificate_id!: string;

  @Column('uuid')
  participant_id!: string;

  /** RFC 8705 `x5t#S256` of the certificate's DER. */
  @Column('text')
  x5t_s256!: string;

  @Column('text')
  subject!: string;

  @Column('timestamptz')
  not_after!: Date;

  @Column('text')
  certificate_pem!: string;

  @CreateDateColumn({ type: 'timestamptz' })
  created_at!: Date;

  @Column('timestamptz', { nullable: true })
  removed_at!: Date | null;
}
