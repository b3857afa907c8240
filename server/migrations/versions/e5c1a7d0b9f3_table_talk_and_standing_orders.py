"""table talk and standing orders: messages, mutes, standing_orders

Revision ID: e5c1a7d0b9f3
Revises: e4a9c2d71f30
Create Date: 2026-12-10 10:00:00.000000

"""
from alembic import op
import sqlalchemy as sa


# revision identifiers, used by Alembic.
revision = 'e5c1a7d0b9f3'
down_revision = 'e4a9c2d71f30'
branch_labels = None
depends_on = None


def upgrade():
    op.create_table('messages',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('game_id', sa.String(length=16), nullable=False),
    sa.Column('seat', sa.String(length=32), nullable=False),
    sa.Column('player_id', sa.Integer(), nullable=False),
    sa.Column('to_seat', sa.String(length=32), nullable=True),
    sa.Column('at', sa.Integer(), nullable=False),
    sa.Column('text', sa.Text(), nullable=False),
    sa.Column('body', sa.Text(), nullable=False),
    sa.Column('signature', sa.String(length=128), nullable=False),
    sa.Column('hash', sa.String(length=64), nullable=False),
    sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
    sa.ForeignKeyConstraint(['game_id'], ['games.id'], ),
    sa.ForeignKeyConstraint(['player_id'], ['players.id'], ),
    sa.PrimaryKeyConstraint('id'),
    sa.UniqueConstraint('hash')
    )
    op.create_index(op.f('ix_messages_game_id'), 'messages', ['game_id'], unique=False)
    op.create_table('mutes',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('player_id', sa.Integer(), nullable=False),
    sa.Column('muted_id', sa.Integer(), nullable=False),
    sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
    sa.ForeignKeyConstraint(['player_id'], ['players.id'], ),
    sa.ForeignKeyConstraint(['muted_id'], ['players.id'], ),
    sa.PrimaryKeyConstraint('id'),
    sa.UniqueConstraint('player_id', 'muted_id')
    )
    op.create_index(op.f('ix_mutes_player_id'), 'mutes', ['player_id'], unique=False)
    op.create_table('standing_orders',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('game_id', sa.String(length=16), nullable=False),
    sa.Column('seat', sa.String(length=32), nullable=False),
    sa.Column('player_id', sa.Integer(), nullable=False),
    sa.Column('at', sa.Integer(), nullable=False),
    sa.Column('text', sa.Text(), nullable=False),
    sa.Column('body', sa.Text(), nullable=False),
    sa.Column('signature', sa.String(length=128), nullable=False),
    sa.Column('hash', sa.String(length=64), nullable=False),
    sa.Column('cancel_body', sa.Text(), nullable=True),
    sa.Column('cancel_signature', sa.String(length=128), nullable=True),
    sa.Column('cancelled_at', sa.Integer(), nullable=True),
    sa.Column('done', sa.Boolean(), nullable=False),
    sa.Column('played', sa.Integer(), nullable=False),
    sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
    sa.ForeignKeyConstraint(['game_id'], ['games.id'], ),
    sa.ForeignKeyConstraint(['player_id'], ['players.id'], ),
    sa.PrimaryKeyConstraint('id'),
    sa.UniqueConstraint('hash')
    )
    op.create_index(op.f('ix_standing_orders_game_id'), 'standing_orders', ['game_id'],
                    unique=False)
    op.create_index(op.f('ix_standing_orders_done'), 'standing_orders', ['done'], unique=False)


def downgrade():
    op.drop_index(op.f('ix_standing_orders_done'), table_name='standing_orders')
    op.drop_index(op.f('ix_standing_orders_game_id'), table_name='standing_orders')
    op.drop_table('standing_orders')
    op.drop_index(op.f('ix_mutes_player_id'), table_name='mutes')
    op.drop_table('mutes')
    op.drop_index(op.f('ix_messages_game_id'), table_name='messages')
    op.drop_table('messages')
