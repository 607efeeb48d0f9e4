DELETE FROM consumer_checkpoints WHERE name = 'azuld.outbox';
