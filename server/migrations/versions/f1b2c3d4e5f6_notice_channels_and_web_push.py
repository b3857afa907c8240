"""notice channels (chat services), Web Push subscriptions, the server's kept secrets

Revision ID: f1b2c3d4e5f6
Revises: f0a1b2c3d4e5
Create Date: 2026-12-01 23:40:00.000000

"""
from alembic import op
import sqlalchemy as sa


# revision identifiers, used by Alembic.
revision = 'f1b2c3d4e5f6'
down_revision = 'f0a1b2c3d4e5'
branch_labels = None
depends_on = None


def upgrade():
    op.create_table(
        'server_secrets',
        sa.Column('name', sa.String(length=32), primary_key=True),
        sa.Column('value', sa.Text(), nullable=False))
    op.create_table(
        'push_subscriptions',
        sa.Column('id', sa.Integer(), primary_key=True),
        sa.Column('player_id', sa.Integer(), sa.ForeignKey('players.id'), nullable=False),
        sa.Column('endpoint', sa.String(length=1000), nullable=False, unique=True),
        sa.Column('p256dh', sa.String(length=128), nullable=False),
        sa.Column('auth', sa.String(length=64), nullable=False),
        sa.Column('label', sa.String(length=64), nullable=True),
        sa.Column('created_at', sa.DateTime(timezone=True), nullable=False))
    op.create_index('ix_push_subscriptions_player_id', 'push_subscriptions', ['player_id'])
    op.create_table(
        'notice_channels',
        sa.Column('id', sa.Integer(), primary_key=True),
        sa.Column('player_id', sa.Integer(), sa.ForeignKey('players.id'), nullable=True),
        sa.Column('game_id', sa.String(length=16), nullable=True),
        sa.Column('kind', sa.String(length=16), nullable=False),
        sa.Column('target', sa.JSON(), nullable=False),
        sa.Column('status', sa.String(length=10), nullable=False),
        sa.Column('failures', sa.Integer(), nullable=False),
        sa.Column('stopped_reason', sa.String(length=300), nullable=True),
        sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
        sa.Column('last_seq', sa.Integer(), nullable=True))
    op.create_index('ix_notice_channels_player_id', 'notice_channels', ['player_id'])
    op.create_index('ix_notice_channels_game_id', 'notice_channels', ['game_id'])
    with op.batch_alter_table('notices') as batch:
        batch.add_column(sa.Column('channel_id', sa.Integer(), nullable=True))
        batch.create_index('ix_notices_channel_id', ['channel_id'])
        batch.create_foreign_key('fk_notices_channel_id', 'notice_channels', ['channel_id'],
                                 ['id'])
    with op.batch_alter_table('players') as batch:
        batch.add_column(sa.Column('chat_ids', sa.JSON(), nullable=True))


def downgrade():
    with op.batch_alter_table('players') as batch:
        batch.drop_column('chat_ids')
    with op.batch_alter_table('notices') as batch:
        batch.drop_constraint('fk_notices_channel_id', type_='foreignkey')
        batch.drop_index('ix_notices_channel_id')
        batch.drop_column('channel_id')
    op.drop_table('notice_channels')
    op.drop_table('push_subscriptions')
    op.drop_table('server_secrets')
