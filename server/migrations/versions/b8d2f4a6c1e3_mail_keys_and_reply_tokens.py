"""moves by mail: mail keys the server holds, reply tokens, a notice's own mail headers

Revision ID: b8d2f4a6c1e3
Revises: a7c3e9f1b2d4
Create Date: 2026-12-02 02:50:00.000000

"""
import sqlalchemy as sa
from alembic import op


# revision identifiers, used by Alembic.
revision = 'b8d2f4a6c1e3'
down_revision = 'a7c3e9f1b2d4'
branch_labels = None
depends_on = None


def upgrade():
    op.create_table(
        'mail_keys',
        sa.Column('id', sa.Integer(), nullable=False),
        sa.Column('player_id', sa.Integer(), nullable=False),
        sa.Column('device_key', sa.String(length=64), nullable=False),
        sa.Column('private_key', sa.Text(), nullable=True),
        sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
        sa.Column('delegated_at', sa.DateTime(timezone=True), nullable=True),
        sa.Column('revoked_at', sa.DateTime(timezone=True), nullable=True),
        sa.ForeignKeyConstraint(['player_id'], ['players.id']),
        sa.PrimaryKeyConstraint('id'),
        sa.UniqueConstraint('device_key'))
    op.create_index(op.f('ix_mail_keys_player_id'), 'mail_keys', ['player_id'], unique=False)
    op.create_table(
        'mail_tokens',
        sa.Column('id', sa.Integer(), nullable=False),
        sa.Column('token_hash', sa.String(length=64), nullable=False),
        sa.Column('player_id', sa.Integer(), nullable=False),
        sa.Column('game_id', sa.String(length=16), nullable=False),
        sa.Column('seat', sa.String(length=32), nullable=False),
        sa.Column('seq', sa.Integer(), nullable=False),
        sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
        sa.Column('spent_at', sa.DateTime(timezone=True), nullable=True),
        sa.ForeignKeyConstraint(['player_id'], ['players.id']),
        sa.PrimaryKeyConstraint('id'),
        sa.UniqueConstraint('token_hash'))
    op.create_index(op.f('ix_mail_tokens_player_id'), 'mail_tokens', ['player_id'],
                    unique=False)
    with op.batch_alter_table('notices') as batch:
        batch.add_column(sa.Column('headers', sa.JSON(none_as_null=True), nullable=True))


def downgrade():
    with op.batch_alter_table('notices') as batch:
        batch.drop_column('headers')
    op.drop_index(op.f('ix_mail_tokens_player_id'), table_name='mail_tokens')
    op.drop_table('mail_tokens')
    op.drop_index(op.f('ix_mail_keys_player_id'), table_name='mail_keys')
    op.drop_table('mail_keys')
