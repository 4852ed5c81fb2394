// Creates the blob store's bucket when it is missing (idempotent), retrying until the object store answers.
// Runs in the platform image (which has @aws-sdk/client-s3) with the same S3_* variables as the services.
'use strict';
const { CreateBucketCommand, HeadBucketCommand, S3Client } = require('@aws-sdk/client-s3');

async function main(env = process.env) {
  const bucket = env.S3_BUCKET;
  if (!bucket) throw new Error('S3_BUCKET is not set');
  const client = new S3Client({
    endpoint: env.S3_ENDPOINT || undefined,
    region: env.S3_REGION || 'us-east-1',
    forcePathStyle: env.S3_FORCE_PATH_STYLE === 'true',
    credentials: env.S3_ACCESS_KEY_ID ? { accessKeyId: env.S3_ACCESS_KEY_ID, secretAccessKey: env.S3_SECRET_ACCESS_KEY || '' } : undefined,
  });
  const deadline = Date.now() + Number(env.TIMEOUT_SECONDS || 300) * 1000;
  try {
    for (;;) {
      try {
        await client.send(new HeadBucketCommand({ Bucket: bucket }));
        console.log(`bucket ${bucket} exists`);
        return;
      } catch (err) {
        const status = err && err.$metadata ? err.$metadata.httpStatusCode : undefined;
        if (status === 404) {
          try {
            await client.send(new CreateBucketCommand({ Bucket: bucket }));
            console.log(`bucket ${bucket} created`);
          } catch (createErr) {
            if (!createErr || createErr.name !== 'BucketAlreadyOwnedByYou') throw createErr;
            console.log(`bucket ${bucket} exists`);
          }
          return;
        }
        if (Date.now() > deadline) throw err;
        console.log(`object store not ready (${(err && err.name) || err}); retrying in 2 s`);
        await new Promise((resolve) => setTimeout(resolve, 2000));
      }
    }
  } finally {
    client.destroy();
  }
}

main().catch((err) => {
  console.error(`create-bucket failed: ${(err && err.message) || err}`);
  process.exit(1);
});
